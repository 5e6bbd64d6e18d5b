package configserver

import (
	"errors"
	"fmt"
	"maps"
	"sync"

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
// refs are read directly on every request, which costs a few small file
// reads rather than a fetch, and the objects of a changed ref are copied
// into the mirror without any git transport: go-git's transports are
// process-wide, and a library must not change process-wide state.
type source struct {
	path string

	mu   sync.Mutex
	repo *git.Repository // opened on first use; nil while it cannot be
}

// refs lists the source's branches and tags, mapped as fetched. No refs
// at all is checked again on a fresh open: a deleted directory reads as a
// repository without refs, and must be an error so that the mirror keeps
// what it has; a repository that is really empty gives an empty map.
func (s *source) refs() (refMap, *git.Repository, error) {
	for attempt := 0; ; attempt++ {
		repo, err := s.open()
		if err != nil {
			return nil, nil, err
		}
		refs, err := s.readRefs(repo)
		if err != nil || len(refs) == 0 {
			s.forget(repo)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", s.path, err)
		}
		if len(refs) > 0 || attempt > 0 {
			return refs, repo, nil
		}
	}
}

func (s *source) open() (*git.Repository, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo == nil {
		repo, err := git.PlainOpen(s.path)
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("%s: %w", s.path, transport.ErrRepositoryNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", s.path, err)
		}
		s.repo = repo
	}
	return s.repo, nil
}

// forget drops a repository that failed, so that the next request opens
// the path again (it may have been re-created).
func (s *source) forget(repo *git.Repository) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo == repo {
		s.repo = nil
	}
}

// readRefs reads the refs from the files when the layout is the usual
// one, else through go-git.
func (s *source) readRefs(repo *git.Repository) (refMap, error) {
	if dir, err := gitDir(s.path); err == nil {
		return readRefFiles(dir)
	}
	return repoRefs(repo)
}

// syncLocal makes the mirror's refs those of the source, copying the
// objects they need first. A request that arrives after a commit reads the
// commit's ref itself, so it is served the commit.
func (m *mirror) syncLocal() error {
	refs, src, err := m.source.refs()
	if err != nil {
		return err
	}
	if len(refs) == 0 { // an empty repository: nothing to serve yet, nothing failed
		m.hasCopy.Store(true)
		return nil
	}
	if maps.Equal(refs, *m.known.Load()) {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Read again under the lock: refs read before it may be older than
	// those another request applied meanwhile, and must not replace them.
	if refs, src, err = m.source.refs(); err != nil {
		return err
	}
	if len(refs) == 0 || maps.Equal(refs, *m.known.Load()) {
		return nil
	}
	c := copier{src: src.Storer, dst: m.repo.Storer, seen: map[plumbing.Hash]bool{}}
	for _, h := range refs {
		if err := c.object(h); err != nil {
			m.source.forget(src)
			return fmt.Errorf("copying from %s: %w", m.source.path, err)
		}
	}
	if err := m.setRefs(refs); err != nil {
		return err
	}
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
