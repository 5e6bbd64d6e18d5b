package configserver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// MaxFileSize is the largest configuration file served (4 MiB); a request
// that needs a larger one fails with an error that names the file.
const MaxFileSize = 4 << 20

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

// refMap is branches and tags under the mirror's names
// (refs/remotes/origin/NAME, refs/tags/NAME).
type refMap = map[plumbing.ReferenceName]plumbing.Hash

// mirror is the bare repository in the base directory that every answer
// is read from, through go-git's storage. Its source (local.go, fetch.go)
// brings it up to date; it keeps what it holds when the source is gone.
// All go-git access goes through mu: a go-git repository is not safe for
// concurrent use, and an update changes refs and packs under readers.
type mirror struct {
	dir string

	mu   sync.Mutex
	repo *git.Repository
	// known are the mirror's branches and tags, kept in memory so that a
	// request resolves its label without reading ref files; written under
	// mu whenever the refs change.
	known atomic.Pointer[refMap]
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
	m := &mirror{dir: dir, repo: repo}
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

// setRefs makes the mirror's branches and tags exactly refs, pruning the
// others, and remembers them; the caller holds mu.
func (m *mirror) setRefs(refs refMap) error {
	known := *m.known.Load()
	for name := range known {
		if _, ok := refs[name]; !ok {
			if err := m.repo.Storer.RemoveReference(name); err != nil {
				return err
			}
		}
	}
	for name, h := range refs {
		if known[name] != h {
			if err := m.repo.Storer.SetReference(plumbing.NewHashReference(name, h)); err != nil {
				return err
			}
		}
	}
	m.known.Store(&refs)
	return nil
}

// reload remembers the refs as stored, after go-git changed them; the
// caller holds mu.
func (m *mirror) reload() error {
	refs, err := m.storedRefs()
	if err == nil {
		m.known.Store(&refs)
	}
	return err
}

// reindex makes go-git look for packs again, after packs were added or
// removed behind its back; the caller holds mu.
func (m *mirror) reindex() {
	if st, ok := m.repo.Storer.(*filesystem.Storage); ok {
		st.Reindex()
	}
}

// holds tells whether the mirror holds the object h and, for a commit,
// its tree: what a ref needs before it may name h. The caller holds mu.
func (m *mirror) holds(h plumbing.Hash) bool {
	obj, err := m.repo.Storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return false
	}
	if obj.Type() != plumbing.CommitObject {
		return true
	}
	c, err := object.DecodeCommit(m.repo.Storer, obj)
	return err == nil && m.repo.Storer.HasEncodedObject(c.TreeHash) == nil
}

// resolve turns a label into a commit: a branch, then a tag (peeled), then a
// full or abbreviated commit id, the order Spring uses.
func (m *mirror) resolve(label string) (plumbing.Hash, error) {
	known := *m.known.Load()
	if h, ok := branch(known, label); ok {
		return h, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := known[plumbing.NewTagReferenceName(label)]; ok {
		if h, ok := m.peel(h); ok {
			return h, nil
		}
	}
	if isCommitID(label) {
		if h, err := m.repo.ResolveRevision(plumbing.Revision(strings.ToLower(label))); err == nil {
			return *h, nil
		}
	}
	return plumbing.ZeroHash, &noSuchLabelError{label: label}
}

// branch looks the branch label up in known. Not NewRemoteReferenceName,
// which formats with fmt.Sprintf: this runs for every request.
func branch(known refMap, label string) (plumbing.Hash, bool) {
	var buf [128]byte
	name := append(append(buf[:0], "refs/remotes/"+remoteName+"/"...), label...)
	h, ok := known[plumbing.ReferenceName(name)]
	return h, ok
}

// peel follows annotated tags (possibly nested) to the commit they name.
func (m *mirror) peel(h plumbing.Hash) (plumbing.Hash, bool) {
	for range 16 {
		tag, err := m.repo.TagObject(h)
		if err != nil {
			_, err := m.repo.CommitObject(h)
			return h, err == nil
		}
		h = tag.Target
	}
	return plumbing.ZeroHash, false
}

func isCommitID(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	return strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

// treeFile is a regular file found in a commit's tree.
type treeFile struct {
	name string
	hash plumbing.Hash
}

// lookup returns, for each group of alternative names, the first that is a
// regular file in the commit's tree; groups with no such file are skipped.
func (m *mirror) lookup(commit plumbing.Hash, groups [][]string) ([]treeFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of commit %s: %w", commit, err)
	}
	var files []treeFile
	for _, names := range groups {
		if f, ok := findFile(tree, names); ok {
			files = append(files, f)
		}
	}
	return files, nil
}

// findFile finds the first of names ("a/b.yml") that is a regular file
// under tree: not a directory, link or submodule.
func findFile(tree *object.Tree, names []string) (treeFile, bool) {
	for _, name := range names {
		e, err := tree.FindEntry(name)
		if err == nil && (e.Mode.IsRegular() || e.Mode == filemode.Executable) {
			return treeFile{name: name, hash: e.Hash}, true
		}
	}
	return treeFile{}, false
}

// blob reads a file's content, refusing files too large to be configuration.
func (m *mirror) blob(h plumbing.Hash) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := m.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	if b.Size > MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes, larger than the %d byte limit", b.Size, MaxFileSize)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}
