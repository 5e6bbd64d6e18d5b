package configserver

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/fortune-tck/fortune-tck/reference/configserver/reffiles"
)

// local is a repository on this machine (a path or a file:// URL), read in
// place through go-git, as Spring's JGitEnvironmentRepository reads a
// file: URI. For every update its ref files are read (reffiles); when
// their bytes changed, go-git reads its refs, and when those changed, the
// mirror is fetched from it in the background (background.go), never on a
// request's path. While it cannot be read (gone, broken, no repository any
// more), answers come from the mirror; once it can, from it again.
type local struct {
	path       string
	mirror     *mirror
	background *background
	current    atomic.Pointer[reader] // answers: inPlace after an update that succeeded, else the mirror
	inPlace    *reader                // reads the repository; nil until it opens, and after a failure
	refFiles   *reffiles.Reader       // tells when the refs cannot have changed (reffiles says why)
}

// maxReadings is how many times an update reads the repository when a
// reading fails (45 ms in all); an empty ref file, which a push through
// go-git leaves for a moment (it truncates, then writes), is read again for
// up to maxEmptyWait: ten readings failed at load average 8.
const maxReadings, maxEmptyWait = 10, 500 * time.Millisecond

// update reads the repository's refs, again when that fails (maxReadings).
// A path that holds no repository (any more), or refs naming what it does
// not hold, is an error: answers come from the mirror. An empty repository
// is nothing to serve yet, and nothing failed.
func (l *local) update() error {
	start := time.Now()
	for reading := 1; ; reading++ {
		err := l.read()
		if err == nil {
			l.current.Store(l.inPlace)
			return nil
		}
		if reading >= maxReadings && (!errors.Is(err, dotgit.ErrEmptyRefFile) || time.Since(start) > maxEmptyWait) {
			l.current.Store(l.mirror.reader)
			return err
		}
		time.Sleep(time.Duration(min(reading, maxReadings)) * time.Millisecond)
	}
}

// read is one reading of the repository's refs; when they changed, it
// checks that the repository holds what they name, and has the mirror
// fetched.
func (l *local) read() error {
	if l.inPlace != nil && !l.refFiles.Changed() {
		return nil
	}
	if l.inPlace == nil {
		if err := l.open(); err != nil {
			return err
		}
	}
	r := l.inPlace
	r.mu.Lock()
	refs, err := readRefs(r.repo, l.refFiles.Loose())
	if err == nil {
		err = l.check(refs)
	}
	r.mu.Unlock()
	if err != nil && !errors.Is(err, dotgit.ErrEmptyRefFile) && !errors.Is(err, errRefsSkipped) {
		l.inPlace = nil // opened again next time: it may have been replaced by one of another layout
	}
	if err != nil {
		return err
	}
	if !maps.Equal(refs, *r.known.Load()) {
		r.known.Store(&refs)
		l.background.start()
	}
	l.refFiles.Keep()
	return nil
}

// open opens the repository through go-git, with the mirror's bounded cache
// and objects/info/alternates read as git does (go-git's keeps them inside).
func (l *local) open() error {
	found, err := git.PlainOpenWithOptions(l.path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return fmt.Errorf("%s: %w", l.path, transport.ErrRepositoryNotFound)
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", l.path, err)
	}
	st, ok := found.Storer.(*filesystem.Storage)
	if !ok {
		return fmt.Errorf("%s: not a repository on disk", l.path)
	}
	dir, repo := st.Filesystem().Root(), found // found: a linked work tree's, which go-git's opening follows
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err != nil {
		repo, err = git.Open(filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(mirrorCacheBytes),
			filesystem.Options{AlternatesFS: osfs.New("/")}), nil)
		if err != nil {
			return fmt.Errorf("opening %s: %w", l.path, err)
		}
	}
	l.refFiles = reffiles.New(dir)
	l.refFiles.Changed() // before go-git reads the refs: a change made meanwhile shows next time
	l.inPlace = newReader(repo, refMap{}, l.mirror.reader)
	return nil
}

// check makes go-git look for packs again (a push or git gc brings some),
// then checks that the repository holds the commits and trees of the refs
// that changed; the caller holds the reader's lock.
func (l *local) check(refs refMap) error {
	l.inPlace.reindex()
	known := *l.inPlace.known.Load()
	for name, h := range refs {
		if known[name] != h && !l.inPlace.holds(h) {
			return fmt.Errorf("%s names %s, which the repository does not hold whole", name, h)
		}
	}
	return nil
}

// readRefs lists repo's branches and tags, mirror-named; without HEAD it is
// gone. go-git reads none of a folder's refs when one of its files goes as
// go-billy lists it (a lock file renamed over a ref: master went missing
// once in 18 suite runs): each of loose, the ref files reffiles saw just
// before, must be read, else it is read again.
func readRefs(repo *git.Repository, loose []string) (refMap, error) {
	iter, err := repo.Storer.IterReferences()
	if err != nil {
		return nil, fmt.Errorf("reading the refs: %w", err)
	}
	refs, read := refMap{}, map[plumbing.ReferenceName]bool{}
	err = iter.ForEach(func(r *plumbing.Reference) error {
		read[r.Name()] = true
		if r.Type() == plumbing.HashReference {
			addRef(refs, r.Name(), r.Hash())
		}
		return nil
	})
	for _, f := range loose {
		if err == nil && !read[plumbing.ReferenceName(f)] {
			err = fmt.Errorf("%s: %w", f, errRefsSkipped)
		}
	}
	if err == nil && !read[plumbing.HEAD] {
		err = transport.ErrRepositoryNotFound // gone since it was opened
	}
	return refs, err
}

var errRefsSkipped = errors.New("go-git's reading of the refs left out a ref file")
