package configserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// MaxFileSize is the largest configuration file served (4 MiB); a request
// that needs a larger one fails with an error that names the file.
const MaxFileSize = 4 << 20

const (
	remoteName  = "origin"
	maxFileSize = MaxFileSize
)

var refSpecs = []config.RefSpec{
	"+refs/heads/*:refs/remotes/origin/*",
	"+refs/tags/*:refs/tags/*",
}

// mirror is a bare local copy of the configuration repository, fetched on
// demand. All go-git access goes through mu: a go-git repository is not safe
// for concurrent use, and a fetch rewrites refs and packs under readers.
type mirror struct {
	display string // the URI as shown to clients (password removed)
	remote  string // the URL handed to go-git
	dir     string // the bare local copy
	auth    transport.AuthMethod
	timeout time.Duration
	log     *slog.Logger

	mu          sync.Mutex
	repo        *git.Repository
	forceRepack bool       // a refetch left the old history's objects behind
	trees       *treeCache // trees read lately, by the copy and by lookups
	// looseN and looseBytes count the loose objects, which are packed
	// once there are many (store.go), aside while packing is set.
	looseN, looseBytes int64
	packing            bool
	background         sync.WaitGroup // packing and indexing aside
	indexing           atomic.Bool    // a tree is being indexed aside

	// source is the repository itself when it is on this machine: read
	// directly, never fetched. Nil for a remote.
	source *source
	// known are the mirror's branches and tags, kept in memory so that a
	// request resolves its label without reading ref files; written under
	// mu whenever the refs change.
	known atomic.Pointer[refMap]

	fetches coalescer
	hasCopy atomic.Bool // a fetch succeeded once (now or in an earlier run)
	failing atomic.Bool // the last fetch failed; warn once per outage
}

// openMirror opens the mirror in dir, creating it when dir is empty or
// missing. A dir that holds a mirror of another remote is refused rather than
// wiped: it may be someone's data.
func openMirror(dir, remote string) (*git.Repository, error) {
	repo, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return initMirror(dir, remote)
	}
	if err != nil {
		return nil, fmt.Errorf("opening base directory %s: %w", dir, err)
	}
	origin, err := repo.Remote(remoteName)
	if err != nil || len(origin.Config().URLs) == 0 || origin.Config().URLs[0] != remote {
		return nil, fmt.Errorf("base directory %s holds a different repository than %s; choose another base directory", dir, remote)
	}
	return openCopy(dir)
}

func initMirror(dir, remote string) (*git.Repository, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("base directory %s is neither empty nor a clone; choose another base directory", dir)
	}
	repo, err := git.PlainInit(dir, true)
	if err != nil {
		return nil, fmt.Errorf("creating the local copy in %s: %w", dir, err)
	}
	_, err = repo.CreateRemote(&config.RemoteConfig{Name: remoteName, URLs: []string{remote}, Fetch: refSpecs})
	if err != nil {
		return nil, fmt.Errorf("configuring the local copy in %s: %w", dir, err)
	}
	return openCopy(dir)
}

// holdsCommits reports whether an earlier run already fetched something, so a
// restarted server can serve its copy while the remote is down.
func holdsCommits(repo *git.Repository) bool {
	refs, err := repo.References()
	if err != nil {
		return false
	}
	found := false
	_ = refs.ForEach(func(r *plumbing.Reference) error {
		if r.Name().IsRemote() || r.Name().IsTag() {
			found = true
			return storer.ErrStop
		}
		return nil
	})
	return found
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
// The tree comes from the tree cache after a copy: the first request after
// a commit does not read the tree the copy just read.
func (m *mirror) lookup(commit plumbing.Hash, groups [][]string) ([]treeFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", commit, err)
	}
	tree, err := m.treeAt(c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("reading the tree of commit %s: %w", commit, err)
	}
	var files []treeFile
	for _, names := range groups {
		if f, ok := m.findFile(tree, names); ok {
			files = append(files, f)
		}
	}
	return files, nil
}

func (m *mirror) findFile(tree *gitTree, names []string) (treeFile, bool) {
	for _, name := range names {
		if h, ok := m.fileAt(tree, name); ok {
			return treeFile{name: name, hash: h}, true
		}
	}
	return treeFile{}, false
}

// fileAt finds the regular file at path ("a/b.yml") under t.
func (m *mirror) fileAt(t *gitTree, path string) (plumbing.Hash, bool) {
	for {
		name, rest, inDir := strings.Cut(path, "/")
		i, ok := t.find([]byte(name))
		switch {
		case !ok:
			return plumbing.ZeroHash, false
		case !inDir:
			return t.hashAt(i), regularFile(t.mode(i))
		case !t.isDir(i):
			return plumbing.ZeroHash, false
		}
		sub, err := m.treeAt(t.hashAt(i))
		if err != nil {
			return plumbing.ZeroHash, false
		}
		t, path = sub, rest
	}
}

// blob reads a file's content, refusing files too large to be configuration.
func (m *mirror) blob(h plumbing.Hash) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := m.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	if b.Size > maxFileSize {
		return nil, fmt.Errorf("file is %d bytes, larger than the %d byte limit", b.Size, maxFileSize)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// remoteURL is the URL go-git should fetch from, or the absolute path of a
// repository on this machine (a path or a file:// URL), so that reading it
// does not depend on the working directory.
func remoteURL(uri string) (string, error) {
	ep, err := transport.NewEndpoint(uri)
	if err != nil {
		return "", fmt.Errorf("repository URI %q: %w", uri, err)
	}
	if ep.Protocol != "file" {
		return uri, nil
	}
	abs, err := filepath.Abs(ep.Path)
	if err != nil {
		return "", fmt.Errorf("repository path %q: %w", ep.Path, err)
	}
	return abs, nil
}

// isLocal tells whether uri names a repository on this machine.
func isLocal(uri string) bool {
	ep, err := transport.NewEndpoint(uri)
	return err == nil && ep.Protocol == "file"
}
