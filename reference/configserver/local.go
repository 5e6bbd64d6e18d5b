package configserver

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// refMap is branches and tags under the mirror's names
// (refs/remotes/origin/NAME, refs/tags/NAME).
type refMap = map[plumbing.ReferenceName]plumbing.Hash

// source is a repository on this machine (a path or a file:// URL). Its
// refs are read from its files on every check, a few small reads rather
// than a fetch, and the objects of a changed ref are copied into the
// mirror without any git transport (copy.go): go-git's transports are
// process-wide, and a library must not change process-wide state.
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

// objects reads the source's objects: loose ones from their files, the
// others through go-git with a bounded cache, opened on first need (a
// commit just made is all loose) and afresh for each copy, since go-git
// loads a repository's pack indexes once and would not see packs pushed
// later.
func (s *source) objects() *objectStore {
	dir := ""
	if s.files.found != nil {
		dir = s.files.found.dir
	}
	st := &objectStore{open: func() (storer.EncodedObjectStorer, func(), error) {
		if dir == "" {
			repo, err := s.open()
			if err != nil {
				return nil, nil, err
			}
			return repo.Storer, func() {}, nil
		}
		fs := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(sourceCacheBytes), filesystem.Options{KeepDescriptors: true})
		return fs, func() { _ = fs.Close() }, nil
	}}
	if dir != "" {
		st.objects = filepath.Join(dir, "objects")
	}
	return st
}

// sourceCacheBytes bounds go-git's cache of the source's objects during a
// copy: the bases of a chain of deltas of a tree, each resolved once when
// a history is read in order (40 versions of a tree of 10,000 entries).
const sourceCacheBytes = 16 * cache.MiByte

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
	if err := m.copyLocal(refs); err != nil {
		return err
	}
	if err := m.setRefs(refs); err != nil {
		return err
	}
	m.source.remember(m.known.Load())
	m.hasCopy.Store(true)
	m.maintain()
	return nil
}

// copyLocal copies into the mirror what refs reach and it lacks: the
// changes of each new commit (copier), written loose when few, else as a
// pack; the caller holds mu.
func (m *mirror) copyLocal(refs refMap) error {
	src := m.source.objects()
	defer src.close()
	sink := &objectSink{objects: m.objectsDir(), limit: unpackLimit, src: src}
	c := m.newCopier(src, m.hasObject, sink)
	c.indexLater = m.indexLater // a new commit's trees; not those a repack reads again
	tips := make([]plumbing.Hash, 0, len(refs))
	for _, h := range refs {
		tips = append(tips, h)
	}
	err := c.copy(tips)
	if err == nil {
		err = sink.finish()
	}
	if err != nil {
		sink.abort()
		return fmt.Errorf("copying from %s: %w", m.source.path, err)
	}
	m.stored(sink)
	return nil
}

// setRefs makes the mirror's branches and tags exactly refs (pruning the
// others) and remembers them; the caller holds mu.
func (m *mirror) setRefs(refs refMap) error {
	for name := range *m.known.Load() {
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
