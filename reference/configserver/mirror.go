package configserver

import (
	"errors"
	"fmt"
	"os"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

const (
	remoteName = "origin"
	// mirrorCacheBytes bounds go-git's cache of the mirror's objects: a
	// tree of 10,000 files is 400 KB.
	mirrorCacheBytes = 8 * cache.MiByte
)

var refSpecs = []config.RefSpec{
	"+refs/heads/*:refs/remotes/origin/*",
	"+refs/tags/*:refs/tags/*",
}

// mirror is the bare repository in the base directory, fetched with go-git
// (fetch.go): every answer is read from it for a remote repository, and
// for a repository on this machine when that cannot be read (local.go). It
// keeps what it holds when the repository is gone. A fetch changes refs
// and packs under readers: it holds the reader's lock.
type mirror struct {
	dir string
	*reader
}

// openMirror opens the mirror in dir, creating it when dir is empty or
// missing. A dir that holds a mirror of another remote is refused rather than
// wiped: it may be someone's data.
func openMirror(dir, remote string) (*mirror, error) {
	if err := prepareMirror(dir, remote); err != nil {
		return nil, err
	}
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(mirrorCacheBytes), filesystem.Options{})
	repo, err := git.Open(st, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the local copy in %s: %w", dir, err)
	}
	m := &mirror{dir: dir, reader: newReader(repo, refMap{}, nil)}
	if err := m.reload(); err != nil {
		return nil, fmt.Errorf("reading the local copy in %s: %w", dir, err)
	}
	return m, nil
}

// prepareMirror checks that dir holds a mirror of remote, or creates one
// there when dir is empty or missing.
func prepareMirror(dir, remote string) error {
	repo, err := git.PlainOpen(dir)
	if err == nil {
		origin, err := repo.Remote(remoteName)
		if err != nil || len(origin.Config().URLs) == 0 || origin.Config().URLs[0] != remote {
			return fmt.Errorf("base directory %s holds a different repository than %s; choose another base directory", dir, remote)
		}
		return nil
	}
	if !errors.Is(err, git.ErrRepositoryNotExists) {
		return fmt.Errorf("opening base directory %s: %w", dir, err)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("base directory %s is neither empty nor a clone; choose another base directory", dir)
	}
	return initMirror(dir, remote)
}

func initMirror(dir, remote string) error {
	repo, err := git.PlainInit(dir, true)
	if err != nil {
		return fmt.Errorf("creating the local copy in %s: %w", dir, err)
	}
	_, err = repo.CreateRemote(&config.RemoteConfig{Name: remoteName, URLs: []string{remote}, Fetch: refSpecs})
	if err != nil {
		return fmt.Errorf("configuring the local copy in %s: %w", dir, err)
	}
	return nil
}

// storedRefs reads the mirror's branches and tags from its files; the
// caller holds mu (or owns m alone).
func (m *mirror) storedRefs() (refMap, error) {
	iter, err := m.repo.References()
	if err != nil {
		return nil, err
	}
	refs := refMap{}
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && (r.Name().IsRemote() || r.Name().IsTag()) {
			refs[r.Name()] = r.Hash()
		}
		return nil
	})
	return refs, err
}

// hasCopy tells whether the mirror holds a branch or tag to serve.
func (m *mirror) hasCopy() bool { return len(*m.known.Load()) > 0 }

// reload remembers the refs as stored, after go-git changed them; the
// caller holds mu.
func (m *mirror) reload() error {
	refs, err := m.storedRefs()
	if err == nil {
		m.known.Store(&refs)
	}
	return err
}
