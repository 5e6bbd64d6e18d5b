package configserver

import (
	"errors"
	"fmt"
	"maps"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// refMap is branches and tags under the mirror's names
// (refs/remotes/origin/NAME, refs/tags/NAME).
type refMap = map[plumbing.ReferenceName]plumbing.Hash

// source is a repository on this machine (a path or a file:// URL). Its
// refs are read from its files on every check, a few small reads rather
// than a fetch, and the objects of a changed ref are copied into the
// mirror without any git transport: go-git's transports are process-wide,
// and a library must not change process-wide state. The repository is
// opened afresh for each copy: go-git loads a repository's pack indexes
// once, so an open repository would not see packs pushed later.
type source struct {
	path  string
	files *refScanner
}

func newSource(path string) *source {
	return &source{path: path, files: newRefScanner(path, newRefReader())}
}

// read lists the source's branches and tags, mapped as fetched; an empty
// map for a repository without any. unchanged (with no refs) means its ref
// files hold the bytes remembered for known: its refs are *known. A path
// that holds no repository (any more) is an error, so that the mirror
// keeps what it has.
func (s *source) read(known *refMap) (refs refMap, unchanged bool, err error) {
	err = s.files.scan()
	if errors.Is(err, errNoGitDir) {
		refs, err = s.repoRefs()
		return refs, false, err
	}
	if err == nil && s.files.unchanged(known) {
		return nil, true, nil
	}
	if err == nil {
		refs, err = s.files.refs()
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", s.path, err)
	}
	return refs, false, nil
}

// remember marks the last reading as that of known.
func (s *source) remember(known *refMap) { s.files.remember(known) }

// repoRefs reads the refs through go-git, for a layout the scanner does
// not know.
func (s *source) repoRefs() (refMap, error) {
	repo, err := s.open()
	if err != nil {
		return nil, err
	}
	refs, err := repoRefs(repo)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.path, err)
	}
	return refs, nil
}

// open opens the repository; a missing one is ErrRepositoryNotFound, which
// the server answers 404 as Spring does.
func (s *source) open() (*git.Repository, error) {
	repo, err := git.PlainOpen(s.path)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s: %w", s.path, transport.ErrRepositoryNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", s.path, err)
	}
	return repo, nil
}

// syncLocal makes the mirror's refs those of the source, copying the
// objects they need first. A request that arrives after a commit reads the
// commit's ref itself, so it is served the commit.
func (m *mirror) syncLocal() error {
	known := m.known.Load()
	refs, unchanged, err := m.source.read(known)
	switch {
	case err != nil || unchanged:
		return err
	case len(refs) == 0: // an empty repository: nothing to serve yet, nothing failed
		m.hasCopy.Store(true)
		return nil
	case maps.Equal(refs, *known):
		m.source.remember(known)
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applyLocal()
}

// applyLocal reads the refs again under mu, since refs read before it may
// be older than those another request applied meanwhile and must not
// replace them, then copies what they need and sets them.
func (m *mirror) applyLocal() error {
	known := m.known.Load()
	refs, unchanged, err := m.source.read(known)
	switch {
	case err != nil || unchanged || len(refs) == 0:
		return err
	case maps.Equal(refs, *known):
		m.source.remember(known)
		return nil
	}
	src, err := m.source.open()
	if err != nil {
		return err
	}
	c := copier{src: src.Storer, dst: m.repo.Storer, seen: map[plumbing.Hash]bool{}}
	for _, h := range refs {
		if err := c.object(h); err != nil {
			return fmt.Errorf("copying from %s: %w", m.source.path, err)
		}
	}
	if err := m.setRefs(refs); err != nil {
		return err
	}
	m.source.remember(m.known.Load())
	m.hasCopy.Store(true)
	return nil
}

// setRefs makes the mirror's branches and tags exactly refs (pruning the
// others) and remembers them; the caller holds mu.
func (m *mirror) setRefs(refs refMap) error {
	for name := range m.localRefs() {
		if _, ok := refs[name]; !ok {
			if err := m.repo.Storer.RemoveReference(name); err != nil {
				return err
			}
		}
	}
	for name, h := range refs {
		if (*m.known.Load())[name] == h {
			continue
		}
		if err := m.repo.Storer.SetReference(plumbing.NewHashReference(name, h)); err != nil {
			return err
		}
	}
	m.known.Store(&refs)
	return nil
}

// copier copies objects and everything they reach that the destination
// lacks. An object is written after all it reaches, so the destination
// holding an object means it holds its whole history: the walk stops there.
type copier struct {
	src, dst storer.EncodedObjectStorer
	seen     map[plumbing.Hash]bool
}

func (c *copier) object(h plumbing.Hash) error {
	if c.seen[h] {
		return nil
	}
	c.seen[h] = true
	if c.dst.HasEncodedObject(h) == nil {
		return nil
	}
	obj, err := c.src.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return fmt.Errorf("object %s: %w", h, err)
	}
	if err := c.reached(obj); err != nil {
		return err
	}
	_, err = c.dst.SetEncodedObject(obj)
	return err
}

// reached copies what obj points to: a commit's parents and tree, a tree's
// entries (not submodules: their commits live elsewhere), a tag's target.
func (c *copier) reached(obj plumbing.EncodedObject) error {
	var next []plumbing.Hash
	switch obj.Type() {
	case plumbing.CommitObject:
		var commit object.Commit
		if err := commit.Decode(obj); err != nil {
			return err
		}
		next = append(commit.ParentHashes, commit.TreeHash)
	case plumbing.TreeObject:
		var tree object.Tree
		if err := tree.Decode(obj); err != nil {
			return err
		}
		for _, e := range tree.Entries {
			if e.Mode != filemode.Submodule {
				next = append(next, e.Hash)
			}
		}
	case plumbing.TagObject:
		var tag object.Tag
		if err := tag.Decode(obj); err != nil {
			return err
		}
		next = append(next, tag.Target)
	}
	for _, h := range next {
		if err := c.object(h); err != nil {
			return err
		}
	}
	return nil
}
