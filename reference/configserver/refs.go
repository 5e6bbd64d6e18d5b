package configserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// errNoGitDir means the path holds no git directory this reader knows.
var errNoGitDir = errors.New("no git directory")

// gitDir is the git directory of a repository at path: path/.git for a
// repository with a work tree, else path itself when it looks bare.
func gitDir(path string) (string, error) {
	if fi, err := os.Stat(filepath.Join(path, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(path, ".git"), nil
	}
	if fi, err := os.Stat(filepath.Join(path, "refs")); err == nil && fi.IsDir() {
		return path, nil
	}
	return "", errNoGitDir
}

// readRefFiles reads the branches and tags of a git directory from its
// files: packed-refs, then the loose refs under refs/heads and refs/tags,
// which win. It is what go-git's References does for these refs, without
// resolving every path component for symbolic links, which made the
// freshness check the largest cost of a request.
func readRefFiles(dir string) (refMap, error) {
	refs := refMap{}
	if err := readPackedRefs(filepath.Join(dir, "packed-refs"), refs); err != nil {
		return nil, err
	}
	for _, sub := range []string{"refs/heads", "refs/tags"} {
		if err := readLooseRefs(dir, sub, refs); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

func readPackedRefs(path string, refs refMap) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if ok && plumbing.IsHash(hash) {
			addRef(refs, plumbing.ReferenceName(name), plumbing.NewHash(hash))
		}
	}
	return sc.Err()
}

// readLooseRefs reads the refs under dir/sub, recursively; a missing
// directory holds no refs. Lock files of a ref being written are not refs:
// git renames them into place. Each file is opened and read once, with as
// few system calls as can be: this runs for every request.
func readLooseRefs(dir, sub string, refs refMap) error {
	entries, err := os.ReadDir(filepath.Join(dir, sub))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var buf [128]byte
	for _, e := range entries {
		name := sub + "/" + e.Name()
		switch {
		case e.IsDir():
			if err := readLooseRefs(dir, name, refs); err != nil {
				return err
			}
		case strings.HasSuffix(name, ".lock"):
		default:
			hash, err := readRefFile(filepath.Join(dir, name), buf[:])
			if err != nil {
				return err
			}
			if plumbing.IsHash(hash) { // else a symbolic ref
				addRef(refs, plumbing.ReferenceName(name), plumbing.NewHash(hash))
			}
		}
	}
	return nil
}

// readRefFile returns the content of a loose ref, trimmed; a file deleted
// meanwhile is empty.
func readRefFile(path string, buf []byte) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimSpace(string(buf[:n])), nil
}

// addRef records a branch or tag under the name the mirror gives it.
func addRef(refs refMap, name plumbing.ReferenceName, h plumbing.Hash) {
	switch {
	case name.IsBranch():
		// Not name.Short(): it parses with fmt.Sscanf, a tenth of a
		// request's cost when it ran on every request.
		refs[plumbing.ReferenceName("refs/remotes/"+remoteName+"/"+strings.TrimPrefix(string(name), "refs/heads/"))] = h
	case name.IsTag():
		refs[name] = h
	}
}

// repoRefs reads the refs through go-git: for repositories whose layout
// readRefFiles does not know (a .git file pointing elsewhere).
func repoRefs(repo *git.Repository) (refMap, error) {
	iter, err := repo.References()
	if err != nil {
		return nil, err
	}
	refs := refMap{}
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference {
			addRef(refs, r.Name(), r.Hash())
		}
		return nil
	})
	return refs, err
}
