package configserver

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The mirror's storage follows git's: a copy of few objects is written
// loose, a larger one as a pack; loose objects are packed once there are
// many (gc --auto), and packs merged into one once there are many.
const (
	maxLoose      = 256     // loose objects before they are packed
	maxLooseBytes = 8 << 20 // or their bytes: 30 trees of 10,000 entries
	maxPacks      = 32      // packs before they are merged into one
	// mirrorCacheBytes bounds go-git's cache of the mirror's objects; the
	// trees a lookup reads are in the mirror's own tree cache.
	mirrorCacheBytes = 8 * cache.MiByte
)

// openCopy opens the mirror's bare repository with a bounded object cache.
func openCopy(dir string) (*git.Repository, error) {
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(mirrorCacheBytes), filesystem.Options{})
	return git.Open(st, nil)
}

func (m *mirror) objectsDir() string { return filepath.Join(m.dir, "objects") }

// objects reads the mirror's own objects; the caller holds mu.
func (m *mirror) objects() *objectStore {
	return &objectStore{objects: m.objectsDir(), open: func() (storer.EncodedObjectStorer, func(), error) {
		return m.repo.Storer, func() {}, nil
	}}
}

// hasObject reports whether the mirror holds h, and so all it reaches.
func (m *mirror) hasObject(h plumbing.Hash) bool { return m.repo.Storer.HasEncodedObject(h) == nil }

func (m *mirror) newCopier(src *objectStore, has func(plumbing.Hash) bool, sink *objectSink) *copier {
	return newCopier(src, has, sink, m.trees)
}

// indexDelay is how long indexing waits: on two CPUs, indexing at once
// made the first request after a one-file commit at 10,000 files 2.6 ms
// instead of 1.8.
const indexDelay = 20 * time.Millisecond

// indexLater indexes aside a tree read from its loose file, one at a time
// (a tree read meanwhile is not indexed, and its next version is inflated
// whole): 2 ms of CPU for a tree of 10,000 entries, which its next version
// then inflates in a quarter of the 1.3 ms a whole inflate takes. It waits
// indexDelay first, so as not to take a CPU from the request that read the
// tree, which is still being answered.
func (m *mirror) indexLater(t *gitTree, loose []byte) {
	if !m.indexing.CompareAndSwap(false, true) {
		return
	}
	m.background.Go(func() {
		defer m.indexing.Store(false)
		time.Sleep(indexDelay)
		idx, err := indexLoose(loose)
		if err != nil {
			m.log.Debug("a loose tree is not indexed: its next version is inflated whole", "tree", t.hash, "err", err)
			return
		}
		if nul := bytes.IndexByte(idx.text, 0); nul >= 0 && bytes.Equal(idx.text[nul+1:], t.data) {
			t.index.Store(idx)
		}
	})
}

// newCopier copies into sink, which reads the bases of its deltas from
// the copier's trees.
func newCopier(src *objectStore, has func(plumbing.Hash) bool, sink *objectSink, trees *treeCache) *copier {
	c := &copier{src: src, has: has, trees: trees, seen: map[plumbing.Hash]bool{}, out: sink}
	sink.trees = func(h plumbing.Hash) *gitTree {
		t, _ := c.treeAt(h)
		return t
	}
	return c
}

// stored takes note of what a sink wrote: go-git must look for packs
// again, and loose objects count towards packing them.
func (m *mirror) stored(s *objectSink) {
	if s.packed {
		if r, ok := m.repo.Storer.(interface{ Reindex() }); ok {
			r.Reindex()
		}
	}
	m.looseN += s.looseN
	m.looseBytes += s.looseBytes
}

// treeAt reads a tree of the mirror, from the tree cache when it was read
// lately (by the copy of its commit, above all); the caller holds mu.
func (m *mirror) treeAt(h plumbing.Hash) (*gitTree, error) {
	if t := m.trees.get(h); t != nil {
		return t, nil
	}
	src := m.objects()
	c := copier{src: src, trees: m.trees}
	return c.treeAt(h)
}

// maintain packs the loose objects once there are many, and merges the
// packs once there are many; the caller holds mu. The loose objects are
// packed aside, as git's gc --auto runs detached: the request that found
// them too many is answered meanwhile, and so are the next ones.
func (m *mirror) maintain() {
	if !m.packing && (m.looseN > maxLoose || m.looseBytes > maxLooseBytes) {
		m.packing = true
		m.background.Go(func() {
			err := m.packLoose()
			m.mu.Lock()
			m.packing = false
			m.mu.Unlock()
			if err != nil {
				m.log.Warn("packing the local copy's loose objects failed", "err", err)
			}
		})
	}
	m.repackIfNeeded()
}

// packLoose writes every loose object into one pack, each tree of a loose
// commit as a delta against its version in the commit's parent, then
// removes the loose files. The copier walks the loose commits (and tags)
// with "in a pack" as "held"; what no loose commit reaches (a tree or blob
// of a history since replaced) follows whole. It runs without mu, on a
// go-git storage of its own: objects, once written, never change, and
// what is copied meanwhile stays loose for the next time. Only making the
// pack known takes mu; the loose files it holds go after.
func (m *mirror) packLoose() error {
	dir := m.objectsDir()
	loose, size, err := listLoose(dir)
	if err != nil {
		return err
	}
	var tips []plumbing.Hash
	for h := range loose {
		typ, err := looseType(dir, h)
		if err != nil {
			return fmt.Errorf("object %s: %w", h, err)
		}
		if typ == plumbing.CommitObject || typ == plumbing.TagObject {
			tips = append(tips, h)
		}
	}
	st := filesystem.NewStorageWithOptions(osfs.New(m.dir), cache.NewObjectLRU(sourceCacheBytes), filesystem.Options{KeepDescriptors: true})
	defer st.Close()
	src := &objectStore{objects: dir, open: func() (storer.EncodedObjectStorer, func(), error) { return st, func() {}, nil }}
	sink := &objectSink{objects: dir, limit: unpackedNone}
	c := newCopier(src, func(h plumbing.Hash) bool { return !loose[h] }, sink, newTreeCache(treeCacheBytes))
	err = c.copy(tips)
	for h := range loose {
		if err != nil || c.seen[h] {
			continue
		}
		var o *gitObject
		if o, err = c.src.read(h); err == nil {
			err = c.emit(h, o, nil, plumbing.ZeroHash)
		}
	}
	if err == nil {
		err = sink.finish()
	}
	if err != nil {
		sink.abort()
		return err
	}
	m.mu.Lock()
	m.stored(sink)
	m.looseN, m.looseBytes = max(0, m.looseN-int64(len(loose))), max(0, m.looseBytes-size)
	m.mu.Unlock()
	for h := range loose {
		if err := os.Remove(loosePath(dir, h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// repackIfNeeded keeps object lookups fast: go-git searches packs one by
// one. After a refetch the old history's objects go too.
func (m *mirror) repackIfNeeded() {
	packed, ok := m.repo.Storer.(storer.PackedObjectStorer)
	if !ok {
		return
	}
	if packs, err := packed.ObjectPacks(); m.packing || !m.forceRepack && (err != nil || len(packs) <= maxPacks) {
		return // while loose objects are packed aside, later
	}
	m.forceRepack = false
	if err := m.repack(); err != nil {
		m.log.Warn("repacking the local copy failed", "err", err)
	}
	// go-git's storage keeps state about the packs it replaced; reopen.
	if repo, err := openCopy(m.dir); err == nil {
		m.repo = repo
	} else {
		m.log.Warn("reopening the local copy after repacking failed", "err", err)
	}
}

// repack writes what the refs reach into one pack and removes the other
// packs and the loose objects, as git gc does (unreachable objects go).
func (m *mirror) repack() error {
	packed := m.repo.Storer.(storer.PackedObjectStorer)
	old, err := packed.ObjectPacks()
	if err != nil {
		return err
	}
	loose, _, err := listLoose(m.objectsDir())
	if err != nil {
		return err
	}
	sink := &objectSink{objects: m.objectsDir(), limit: unpackedNone}
	c := m.newCopier(m.objects(), func(plumbing.Hash) bool { return false }, sink)
	var tips []plumbing.Hash
	for _, h := range m.localRefs() {
		tips = append(tips, h)
	}
	if len(tips) == 0 {
		return nil // nothing to keep: no reason to remove anything
	}
	err = c.copy(tips)
	if err == nil && sink.pack != nil {
		var sum plumbing.Hash
		sum, err = sink.pack.finish()
		sink.pack = nil
		for _, h := range old {
			if err == nil && h != sum {
				err = packed.DeleteOldObjectPackAndIndex(h, time.Time{})
			}
		}
	}
	if err != nil {
		sink.abort()
		return err
	}
	for h := range loose {
		if err := os.Remove(loosePath(m.objectsDir(), h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	m.looseN, m.looseBytes = 0, 0
	return nil
}

// listLoose lists the loose objects of an objects directory, and their
// bytes.
func listLoose(objects string) (map[plumbing.Hash]bool, int64, error) {
	dirs, err := os.ReadDir(objects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	found := map[plumbing.Hash]bool{}
	var size int64
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 || !isHex(d.Name()[0]) || !isHex(d.Name()[1]) {
			continue
		}
		files, err := os.ReadDir(filepath.Join(objects, d.Name()))
		if err != nil {
			return nil, 0, err
		}
		for _, f := range files {
			id := d.Name() + f.Name()
			if len(id) != 40 || strings.ToLower(id) != id {
				continue
			}
			b, err := hex.DecodeString(id)
			if err != nil {
				continue
			}
			var h plumbing.Hash
			copy(h[:], b)
			found[h] = true
			if info, err := f.Info(); err == nil {
				size += info.Size()
			}
		}
	}
	return found, size, nil
}

// countLoose counts the loose objects of the copy, and makes the 256
// directories loose objects go to: a commit's copy then creates files
// only, and no directory while a request waits.
func (m *mirror) countLoose() error {
	loose, size, err := listLoose(m.objectsDir())
	if err != nil {
		return fmt.Errorf("listing the local copy's objects: %w", err)
	}
	m.looseN, m.looseBytes = int64(len(loose)), size
	for i := range 256 {
		if err := os.MkdirAll(filepath.Join(m.objectsDir(), fmt.Sprintf("%02x", i)), 0o755); err != nil {
			return err
		}
	}
	return nil
}
