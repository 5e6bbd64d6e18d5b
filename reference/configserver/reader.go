package configserver

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// MaxFileSize is the largest configuration file served (4 MiB); a request
// that needs a larger one fails with an error that names the file.
const MaxFileSize = 4 << 20

// refMap is branches and tags under the mirror's names
// (refs/remotes/origin/NAME, refs/tags/NAME).
type refMap = map[plumbing.ReferenceName]plumbing.Hash

// reader reads answers from one repository opened with go-git: the mirror,
// or a repository on this machine read in place. All go-git access goes
// through mu: a go-git repository is not safe for concurrent use.
//
// A reading that fails is tried again once with go-git looking for packs
// anew: a git gc or repack of a repository read in place replaces its
// packs behind go-git's back, and a fetch adds one to the mirror. When it
// fails again and the reader has a fallback (the mirror, for a repository
// read in place), the objects are read from there: an object has the same
// content wherever it is found.
type reader struct {
	mu   sync.Mutex
	repo *git.Repository
	// known are the branches and tags, under the mirror's names, kept in
	// memory so that a request resolves its label without reading ref
	// files; set whenever the refs change.
	known    atomic.Pointer[refMap]
	fallback *reader
}

func newReader(repo *git.Repository, known refMap, fallback *reader) *reader {
	r := &reader{repo: repo, fallback: fallback}
	r.known.Store(&known)
	return r
}

// read runs fn on the repository, again after reindexes while it fails (a
// git repack swaps packs under it), then on the fallback's when asked to.
func (r *reader) read(useFallback bool, fn func(*git.Repository) error) error {
	r.mu.Lock()
	err := fn(r.repo)
	for retry := 1; err != nil && retry <= 4; retry++ {
		time.Sleep(time.Duration(retry-1) * time.Millisecond)
		r.reindex()
		err = fn(r.repo)
	}
	r.mu.Unlock()
	if err != nil && useFallback && r.fallback != nil {
		if ferr := r.fallback.read(false, fn); ferr == nil {
			return nil
		}
	}
	return err
}

// reindex makes go-git look for packs again, after packs were added or
// removed behind its back; the caller holds mu.
func (r *reader) reindex() {
	if st, ok := r.repo.Storer.(*filesystem.Storage); ok {
		st.Reindex()
	}
}

// holds tells whether the repository holds the object h and, for a commit,
// its tree: what a ref needs before it may name h. The caller holds mu.
// Not HasEncodedObject alone, which does not look in alternates.
func (r *reader) holds(h plumbing.Hash) bool {
	obj, err := r.repo.Storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return false
	}
	if obj.Type() != plumbing.CommitObject {
		return true
	}
	c, err := object.DecodeCommit(r.repo.Storer, obj)
	if err != nil {
		return false
	}
	if r.repo.Storer.HasEncodedObject(c.TreeHash) == nil {
		return true
	}
	_, err = r.repo.Storer.EncodedObject(plumbing.TreeObject, c.TreeHash)
	return err == nil
}

// resolve turns a label into a commit: a branch, then a tag (peeled), then a
// full or abbreviated commit id, the order Spring uses.
func (r *reader) resolve(label string) (plumbing.Hash, error) {
	known := *r.known.Load()
	if h, ok := branch(known, label); ok {
		return h, nil
	}
	h, tagged := known[plumbing.NewTagReferenceName(label)]
	if !tagged && !isCommitID(label) {
		return plumbing.ZeroHash, &noSuchLabelError{label: label}
	}
	err := r.read(false, func(repo *git.Repository) error {
		if tagged {
			return peel(repo, &h)
		}
		id, err := repo.ResolveRevision(plumbing.Revision(strings.ToLower(label)))
		if err == nil {
			h = *id
		}
		return err
	})
	if err != nil {
		return plumbing.ZeroHash, &noSuchLabelError{label: label}
	}
	return h, nil
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
func peel(repo *git.Repository, h *plumbing.Hash) error {
	for range 16 {
		tag, err := repo.TagObject(*h)
		if err != nil {
			_, err := repo.CommitObject(*h)
			return err
		}
		*h = tag.Target
	}
	return fmt.Errorf("tags nested too deep at %s", *h)
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
func (r *reader) lookup(commit plumbing.Hash, groups [][]string) ([]treeFile, error) {
	var files []treeFile
	err := r.read(true, func(repo *git.Repository) error {
		files = files[:0]
		c, err := repo.CommitObject(commit)
		if err != nil {
			return fmt.Errorf("reading commit %s: %w", commit, err)
		}
		tree, err := c.Tree()
		if err != nil {
			return fmt.Errorf("reading the tree of commit %s: %w", commit, err)
		}
		for _, names := range groups {
			if f, ok := findFile(tree, names); ok {
				files = append(files, f)
			}
		}
		return nil
	})
	return files, err
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
func (r *reader) blob(h plumbing.Hash) ([]byte, error) {
	var data []byte
	var size int64
	err := r.read(true, func(repo *git.Repository) error {
		b, err := repo.BlobObject(h)
		if err != nil {
			return err
		}
		if size = b.Size; size > MaxFileSize {
			return nil
		}
		rd, err := b.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		data, err = io.ReadAll(rd)
		return err
	})
	if err == nil && size > MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes, larger than the %d byte limit", size, MaxFileSize)
	}
	return data, err
}
