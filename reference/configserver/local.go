package configserver

import (
	"errors"
	"fmt"
	"maps"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/fortune-tck/fortune-tck/reference/configserver/reffiles"
)

// local is a repository on this machine (a path or a file:// URL). For
// every update its ref files are read (reffiles); when their bytes changed,
// go-git reads its refs, and when those changed, its object files are
// copied into the mirror (objfiles.go) before the mirror's refs are set to
// them. Why not a go-git fetch: go-git fetches a local path either through
// the git binary, which the reference's image does not have, or through its
// in-process server, which walks the whole history for every fetch
// (docs/performance.md).
type local struct {
	path   string
	mirror *mirror
	files  *objectFiles
	// repo is the repository, opened through go-git; nil until it opens,
	// and after a reading failed.
	repo *git.Repository
	// refFiles tells when the refs cannot have changed since the last
	// update, so that go-git need not read them (reffiles' doc says why).
	refFiles *reffiles.Reader
}

// maxReadings is how many times an update reads the repository when a
// reading fails. A push through go-git rewrites a ref file in place (it
// truncates the file, then writes the new hash; git itself renames a lock
// file over it), so a reader may find it empty for a moment ("ref file is
// empty"). Without a second reading, a request made after a push to master
// was answered from the last copy whenever a push to another branch was
// under way at that instant. The next reading, a few milliseconds later, finds
// the file whole; ten readings, 45 ms at most, hold under a loaded machine.
const maxReadings = 10

// update makes the mirror's refs the repository's, copying the objects
// they need first, and reads the repository again when that fails (see
// maxReadings). A path that holds no repository (any more) is an error, so
// that the mirror keeps what it has; an empty repository is nothing to
// serve yet, and nothing failed.
func (l *local) update() error {
	var err error
	for reading := range maxReadings {
		if reading > 0 {
			time.Sleep(time.Duration(reading) * time.Millisecond)
		}
		if err = l.read(); err == nil {
			return nil
		}
	}
	return err
}

// read is one reading of the repository: its refs, and when they changed
// the object files they need.
func (l *local) read() error {
	if l.repo != nil && !l.refFiles.Changed() {
		return nil
	}
	refs, err := l.refs()
	if err != nil {
		return err
	}
	m := l.mirror
	if len(refs) > 0 && !maps.Equal(refs, *m.known.Load()) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if err := l.apply(refs); err != nil {
			return fmt.Errorf("copying from %s: %w", l.path, err)
		}
	}
	l.refFiles.Keep()
	return nil
}

// refs reads the repository's branches and tags, mapped as fetched. The
// repository is opened again after a failed reading: it may have been
// replaced by one of another layout (bare, or with a work tree).
func (l *local) refs() (refMap, error) {
	if l.repo != nil {
		if refs, err := readRefs(l.repo); err == nil {
			return refs, nil
		}
		l.repo = nil
	}
	repo, err := git.PlainOpen(l.path)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s: %w", l.path, transport.ErrRepositoryNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", l.path, err)
	}
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("%s: not a repository on disk", l.path)
	}
	files := reffiles.New(st.Filesystem().Root())
	files.Changed() // before go-git reads the refs: a change made meanwhile shows next time
	refs, err := readRefs(repo)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", l.path, err)
	}
	l.repo, l.refFiles = repo, files
	return refs, nil
}

// readRefs lists the branches and tags of repo; one without a HEAD is gone.
func readRefs(repo *git.Repository) (refMap, error) {
	iter, err := repo.Storer.IterReferences()
	if err != nil {
		return nil, err
	}
	refs, head := refMap{}, false
	err = iter.ForEach(func(r *plumbing.Reference) error {
		head = head || r.Name() == plumbing.HEAD
		if r.Type() == plumbing.HashReference {
			addRef(refs, r.Name(), r.Hash())
		}
		return nil
	})
	if err == nil && !head {
		err = transport.ErrRepositoryNotFound // gone since it was opened
	}
	return refs, err
}

// apply copies the object files the mirror lacks, checks that it holds
// what refs name, sets them, then removes the files the repository no
// longer has; the caller holds the mirror's lock.
func (l *local) apply(refs refMap) error {
	m := l.mirror
	added, err := l.files.copyFrom(l.repo.Storer.(*filesystem.Storage).Filesystem().Root())
	if added {
		m.reindex()
	}
	if err != nil {
		return err
	}
	for name, h := range refs {
		if !m.holds(h) {
			return fmt.Errorf("%s names %s, which the repository does not hold whole", name, h)
		}
	}
	if err := m.setRefs(refs); err != nil {
		return err
	}
	if l.files.prune() {
		m.reindex()
	}
	return nil
}
