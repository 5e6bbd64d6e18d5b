package configserver

import (
	"fmt"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// copier copies the objects that some tips reach and a repository (the
// mirror) lacks, reading of each commit only what it changed: a commit's
// tree is compared entry by entry with its parents' trees, and only the
// entries no parent holds (and, in a changed directory, only its changed
// entries) are looked at further. A commit that changes one file of 10,000
// costs one tree read and a few object checks, not one check per file.
//
// Commits are copied parents first, so that when a commit is compared with
// its parents, what the parents hold is in the mirror or already in the
// copy: an entry equal to a parent's is present, and so is everything it
// reaches. Within a commit, an object follows everything it reaches.
type copier struct {
	src   *objectStore
	has   func(plumbing.Hash) bool // the mirror holds it, and all it reaches
	trees *treeCache
	seen  map[plumbing.Hash]bool // in the mirror or in the copy, with all it reaches
	out   *objectSink
	// indexLater, when set, indexes aside a tree read from its loose file,
	// so that its next version is inflated from it.
	indexLater func(t *gitTree, loose []byte)
}

// newCommit is a commit the mirror lacks.
type newCommit struct {
	hash     plumbing.Hash
	obj      *gitObject
	tree     plumbing.Hash
	parents  []plumbing.Hash
	children []*newCommit
	waiting  int // parents not copied yet
}

// copy copies what tips reach; tips are commits, annotated tags, or any
// object a tag names.
func (c *copier) copy(tips []plumbing.Hash) error {
	commits := map[plumbing.Hash]*newCommit{}
	var order []*newCommit
	var others []plumbing.Hash // tags, trees and blobs, in the order found
	other := map[plumbing.Hash]*gitObject{}
	stack := append([]plumbing.Hash(nil), tips...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c.seen[h] || commits[h] != nil || other[h] != nil {
			continue
		}
		if c.has(h) {
			c.seen[h] = true
			continue
		}
		o, err := c.src.read(h)
		if err != nil {
			return err
		}
		switch o.typ {
		case plumbing.CommitObject:
			tree, parents, err := commitLinks(o.data)
			if err != nil {
				return fmt.Errorf("commit %s: %w", h, err)
			}
			nc := &newCommit{hash: h, obj: o, tree: tree, parents: parents}
			commits[h] = nc
			order = append(order, nc)
			stack = append(stack, parents...)
		case plumbing.TagObject:
			target, err := tagTarget(o.data)
			if err != nil {
				return fmt.Errorf("tag %s: %w", h, err)
			}
			other[h] = o
			others = append(others, h)
			stack = append(stack, target)
		case plumbing.TreeObject, plumbing.BlobObject:
			other[h] = o
			others = append(others, h)
		default:
			return fmt.Errorf("object %s: unexpected type %s", h, o.typ)
		}
	}
	var ready []*newCommit
	for _, nc := range order {
		for _, p := range nc.parents {
			if pc := commits[p]; pc != nil {
				pc.children = append(pc.children, nc)
				nc.waiting++
			}
		}
	}
	for _, nc := range order {
		if nc.waiting == 0 {
			ready = append(ready, nc)
		}
	}
	for len(ready) > 0 {
		nc := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		if err := c.commit(nc, commits); err != nil {
			return err
		}
		for _, child := range nc.children {
			if child.waiting--; child.waiting == 0 {
				ready = append(ready, child)
			}
		}
	}
	for _, h := range others {
		if err := c.other(h, other); err != nil {
			return err
		}
	}
	return nil
}

// other copies a tag, tree or blob a ref or tag names; a tag after what it
// names.
func (c *copier) other(h plumbing.Hash, other map[plumbing.Hash]*gitObject) error {
	o := other[h]
	if c.seen[h] || o == nil {
		return nil
	}
	switch o.typ {
	case plumbing.TagObject:
		target, _ := tagTarget(o.data) // read when found
		if err := c.other(target, other); err != nil {
			return err
		}
	case plumbing.TreeObject:
		t, err := c.parse(h, o)
		if err != nil {
			return err
		}
		return c.tree(t, o, nil, plumbing.ZeroHash)
	}
	return c.emit(h, o, nil, plumbing.ZeroHash)
}

// commit copies a commit whose parents are in the mirror or copied.
func (c *copier) commit(nc *newCommit, commits map[plumbing.Hash]*newCommit) error {
	if !c.seen[nc.tree] && !c.has(nc.tree) {
		bases := make([]*gitTree, 0, len(nc.parents))
		for _, p := range nc.parents {
			pt, err := c.parentTree(p, commits)
			if err != nil {
				return err
			}
			bases = append(bases, pt)
		}
		var like *gitTree
		base := plumbing.ZeroHash
		if len(bases) > 0 {
			like, base = bases[0], bases[0].hash
		}
		t, read, err := c.newTree(nc.tree, like)
		if err != nil {
			return err
		}
		if err := c.tree(t, read, bases, base); err != nil {
			return err
		}
	}
	c.seen[nc.tree] = true
	return c.emit(nc.hash, nc.obj, nil, plumbing.ZeroHash)
}

func (c *copier) parentTree(p plumbing.Hash, commits map[plumbing.Hash]*newCommit) (*gitTree, error) {
	tree := plumbing.ZeroHash
	if pc := commits[p]; pc != nil {
		tree = pc.tree
	} else {
		o, err := c.src.read(p)
		if err != nil {
			return nil, err
		}
		if o.typ != plumbing.CommitObject {
			return nil, fmt.Errorf("object %s: a parent that is not a commit", p)
		}
		if tree, _, err = commitLinks(o.data); err != nil {
			return nil, fmt.Errorf("commit %s: %w", p, err)
		}
	}
	return c.treeAt(tree)
}

// tree copies t, which the mirror lacks, and the entries of it that no
// base (its version in each parent, when a directory) holds. read is t as
// read, with its loose object file when it was read from one (nil when
// the cache had t); delta names the version of t a pack may store it as a
// delta against.
func (c *copier) tree(t *gitTree, read *gitObject, bases []*gitTree, delta plumbing.Hash) error {
	err := t.changed(bases, func(i, _ int) error {
		h := t.hashAt(i)
		mode := t.mode(i)
		if mode == modeSubmodule || c.seen[h] {
			return nil // a submodule's commits live in another repository
		}
		if c.has(h) {
			c.seen[h] = true
			return nil
		}
		if mode != modeDir {
			o, err := c.src.read(h)
			if err != nil {
				return err
			}
			return c.emit(h, o, nil, plumbing.ZeroHash)
		}
		name := t.name(i)
		var subBases []*gitTree
		subDelta := plumbing.ZeroHash
		for k, b := range bases {
			j, ok := b.find(name)
			if !ok || !b.isDir(j) {
				continue
			}
			bt, err := c.treeAt(b.hashAt(j))
			if err != nil {
				return err
			}
			subBases = append(subBases, bt)
			if k == 0 {
				subDelta = bt.hash
			}
		}
		var like *gitTree
		if len(subBases) > 0 {
			like = subBases[0]
		}
		sub, subRead, err := c.newTree(h, like)
		if err != nil {
			return err
		}
		return c.tree(sub, subRead, subBases, subDelta)
	})
	if err != nil {
		return err
	}
	o := &gitObject{typ: plumbing.TreeObject, data: t.data}
	if read != nil {
		o.loose, o.from = read.loose, read.from
	}
	return c.emit(t.hash, o, t, delta)
}

func (c *copier) emit(h plumbing.Hash, o *gitObject, t *gitTree, delta plumbing.Hash) error {
	c.seen[h] = true
	return c.out.add(pendingObject{hash: h, obj: o, tree: t, delta: delta})
}

// inflatedFromParent counts the trees read by inflating only what differs
// from their parent's (inflate.go), for tests.
var inflatedFromParent atomic.Int64

// newTree reads a tree to copy, and the object read (none when the cache
// has it); like is the version it likely derives from, whose entries it
// reuses where the bytes are the same.
func (c *copier) newTree(h plumbing.Hash, like *gitTree) (*gitTree, *gitObject, error) {
	if t := c.trees.get(h); t != nil {
		return t, nil, nil
	}
	var base *deflateIndex
	if like != nil {
		base = like.index.Load()
	}
	o, fromParent, err := c.src.readLike(h, base)
	if fromParent {
		inflatedFromParent.Add(1)
	}
	if o == nil && err == nil {
		o, err = c.src.readStored(h)
	}
	if err != nil {
		return nil, nil, err
	}
	if o.typ != plumbing.TreeObject {
		return nil, nil, fmt.Errorf("object %s: a %s where a tree was expected", h, o.typ)
	}
	t, err := parseTreeLike(h, o.data, like)
	if err != nil {
		return nil, nil, fmt.Errorf("tree %s: %w", h, err)
	}
	if o.loose != nil && c.indexLater != nil {
		c.indexLater(t, o.loose)
	}
	c.trees.add(t)
	return t, o, nil
}

// treeAt reads a tree, from the cache when it was read lately.
func (c *copier) treeAt(h plumbing.Hash) (*gitTree, error) {
	if t := c.trees.get(h); t != nil {
		return t, nil
	}
	o, err := c.src.read(h)
	if err != nil {
		return nil, err
	}
	return c.parse(h, o)
}

func (c *copier) parse(h plumbing.Hash, o *gitObject) (*gitTree, error) {
	if o.typ != plumbing.TreeObject {
		return nil, fmt.Errorf("object %s: a %s where a tree was expected", h, o.typ)
	}
	t, err := parseTree(h, o.data)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	c.trees.add(t)
	return t, nil
}

// unpackLimit is git's transfer.unpackLimit: a copy of fewer objects is
// stored as loose objects (the loose file of the source as it is, for a
// commit just made: no compression), a larger one as a pack.
const (
	unpackLimit  = 100
	maxUnpacked  = 16 << 20 // bytes held to be written loose
	unpackedNone = -1       // objectSink.limit that always packs
)

// pendingObject is one object to store; a tree may be stored as a delta
// against the tree delta, when the pack holds it.
type pendingObject struct {
	hash  plumbing.Hash
	obj   *gitObject
	tree  *gitTree
	delta plumbing.Hash
}

// objectSink stores the copied objects in the mirror: held in memory while
// there are few, and written loose at the end, in the order received (so
// that an object is on disk only after all it reaches); once there are
// many, streamed into a pack installed at the end.
type objectSink struct {
	objects string // the mirror's objects directory
	limit   int    // objects held before packing; unpackedNone to pack
	src     *objectStore
	trees   func(plumbing.Hash) *gitTree

	held      []pendingObject
	heldBytes int
	pack      *packWriter

	// After finish: what was written.
	packed             bool
	looseN, looseBytes int64
}

func (s *objectSink) add(p pendingObject) error {
	if s.pack == nil && len(s.held) < s.limit && s.heldBytes+len(p.obj.data) <= maxUnpacked {
		s.held = append(s.held, p)
		s.heldBytes += len(p.obj.data)
		return nil
	}
	if s.pack == nil {
		pw, err := newPackWriter(s.objects)
		if err != nil {
			return err
		}
		s.pack = pw
		for _, h := range s.held {
			if err := s.packOne(h); err != nil {
				return err
			}
		}
		s.held, s.heldBytes = nil, 0
	}
	return s.packOne(p)
}

func (s *objectSink) packOne(p pendingObject) error {
	return s.pack.add(p.hash, p.obj, p.tree, p.delta, s.trees)
}

// finish writes what is held, or completes the pack; abort undoes a pack.
func (s *objectSink) finish() error {
	if s.pack != nil {
		if _, err := s.pack.finish(); err != nil {
			return err
		}
		s.packed, s.pack = true, nil
		return nil
	}
	for _, p := range s.held {
		o := p.obj
		if o.loose == nil && s.src != nil {
			if b, path := s.src.looseFile(p.hash); b != nil {
				o = &gitObject{typ: o.typ, data: o.data, loose: b, from: path}
			}
		}
		n, err := writeLoose(s.objects, p.hash, o)
		if err != nil {
			return fmt.Errorf("writing object %s: %w", p.hash, err)
		}
		s.looseN++
		s.looseBytes += n
	}
	s.held = nil
	return nil
}

func (s *objectSink) abort() {
	if s.pack != nil {
		s.pack.abort()
		s.pack = nil
	}
}
