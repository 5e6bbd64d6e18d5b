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
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

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

// update makes the mirror's refs the repository's, copying the objects
// they need first. A path that holds no repository (any more) is an error,
// so that the mirror keeps what it has; an empty repository is nothing to
// serve yet, and nothing failed.
func (l *local) update() error {
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
// repository is opened again after a failed reading, as it may have been
// replaced by one of another layout (bare, or with a work tree), but not
// after one that met a ref file being written all along: readRefs waited
// for it already.
func (l *local) refs() (refMap, error) {
	if l.repo != nil {
		refs, err := readRefs(l.repo, awaitWhole(l.refFiles))
		if err == nil {
			return refs, nil
		}
		if errors.Is(err, dotgit.ErrEmptyRefFile) {
			return nil, fmt.Errorf("reading %s: %w", l.path, err)
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
	refs, err := readRefs(repo, awaitWhole(files))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", l.path, err)
	}
	l.repo, l.refFiles = repo, files
	return refs, nil
}

// maxRefReadings is how many times readRefs has go-git read the refs while
// it finds a ref file empty. A push through go-git rewrites a ref file in
// place (it truncates the file, then writes the new hash; git itself
// renames a lock file over it), so a reader may find it empty ("ref file is
// empty"). Without another reading, a request made after a push to master
// was answered from the last copy whenever a push to another branch was
// under way at that instant. Any other failure is a repository broken for
// longer: it is read once.
const maxRefReadings = 5

// refWait is how long readRefs waits in all for the ref files to be whole
// again (reffiles.Reader.AwaitWhole). While
// TestCommitVisibleWhileAnotherBranchIsRewritten ran on a 2-CPU VM with a
// load average of 20-31, half the waits took under 2-6 ms, one in a
// hundred 140-250 ms, the longest 380 ms.
const refWait = 500 * time.Millisecond

// awaitWhole waits, for one readRefs, until files finds no ref file empty,
// for refWait from its first call at most.
func awaitWhole(files *reffiles.Reader) func() bool {
	var deadline time.Time
	return func() bool {
		if deadline.IsZero() {
			deadline = time.Now().Add(refWait)
		}
		return files.AwaitWhole(time.Until(deadline))
	}
}

// readRefs lists the branches and tags of repo. While a ref file is found
// empty, it waits for await (the ref files whole again) and reads them
// again, up to maxRefReadings times in all; when await says they are still
// not whole, the reading failed.
func readRefs(repo *git.Repository, await func() bool) (refMap, error) {
	refs, err := readRefsOnce(repo)
	for reading := 1; reading < maxRefReadings && errors.Is(err, dotgit.ErrEmptyRefFile) && await(); reading++ {
		refs, err = readRefsOnce(repo)
	}
	return refs, err
}

// readRefsOnce lists the branches and tags of repo; one without a HEAD is
// gone.
func readRefsOnce(repo *git.Repository) (refMap, error) {
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
