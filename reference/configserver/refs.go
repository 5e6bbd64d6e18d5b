package configserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
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

// A reading of the ref files is kept as records of the bytes read, so that
// the next reading can be compared with it byte for byte:
//
//	'L' name NUL len(1 byte) content          a loose ref (name refs/heads/...)
//	'P' len(8 bytes, little endian) content   packed-refs
//
// The refs are a function of these bytes alone, so equal readings hold
// equal refs.
const (
	recLoose  = 'L'
	recPacked = 'P'
	// maxRefFile is how much of a loose ref is read: a hash and a newline
	// fit, and a longer file is no hash.
	maxRefFile = 128
)

// appendLoose records the loose ref dir/base; content is at most
// maxRefFile bytes.
func appendLoose[S ~string | ~[]byte](t []byte, dir, base S, content []byte) []byte {
	t = append(t, recLoose)
	t = append(t, dir...)
	t = append(t, '/')
	t = append(t, base...)
	t = append(t, 0, byte(len(content)))
	return append(t, content...)
}

// beginPacked starts a packed-refs record whose content the caller appends;
// endPacked fills in its length.
func beginPacked(t []byte) ([]byte, int) {
	return append(t, recPacked, 0, 0, 0, 0, 0, 0, 0, 0), len(t)
}

func endPacked(t []byte, start int) []byte {
	binary.LittleEndian.PutUint64(t[start+1:], uint64(len(t)-start-9))
	return t
}

// parseRefs turns a reading into the mirror's refs; loose refs win over
// packed ones, as in git.
func parseRefs(t []byte) (refMap, error) {
	refs, loose := refMap{}, refMap{}
	for len(t) > 0 {
		kind, name, content, rest, ok := nextRecord(t)
		if !ok {
			break
		}
		if kind == recPacked {
			if err := parsePackedRefs(content, refs); err != nil {
				return nil, err
			}
		} else if hash := strings.TrimSpace(string(content)); plumbing.IsHash(hash) { // else a symbolic ref
			addRef(loose, plumbing.ReferenceName(name), plumbing.NewHash(hash))
		}
		t = rest
	}
	maps.Copy(refs, loose)
	return refs, nil
}

// nextRecord splits the first record off a reading; ok is false for
// anything it does not understand, rather than a panic.
func nextRecord(t []byte) (kind byte, name, content, rest []byte, ok bool) {
	switch t[0] {
	case recLoose:
		i := bytes.IndexByte(t, 0)
		if i < 0 || i+1 >= len(t) || i+2+int(t[i+1]) > len(t) {
			return 0, nil, nil, nil, false
		}
		end := i + 2 + int(t[i+1])
		return recLoose, t[1:i], t[i+2 : end], t[end:], true
	case recPacked:
		if len(t) < 9 {
			return 0, nil, nil, nil, false
		}
		n := binary.LittleEndian.Uint64(t[1:9])
		if n > uint64(len(t)-9) {
			return 0, nil, nil, nil, false
		}
		return recPacked, nil, t[9 : 9+n], t[9+n:], true
	}
	return 0, nil, nil, nil, false
}

func parsePackedRefs(b []byte, refs refMap) error {
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
// the ref scanner does not know (a .git file pointing elsewhere).
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
