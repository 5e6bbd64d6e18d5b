package configserver

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectFiles keeps the mirror's object files those of a repository on this
// machine, as git clone of a local path copies them: loose objects, and
// packs with their indexes, byte for byte. Nothing is parsed: go-git lists
// the files of both sides and reads the copies. A file is copied to a
// temporary name, then renamed into place, so that the mirror never shows
// half of one; an index comes before its pack, which go-git looks for
// first. Object files never change, so a file the mirror has is never
// copied again; files the repository no longer has (packed or pruned by
// its git gc) go once the mirror's refs are set. Not safe for concurrent
// use: the mirror's lock guards it.
type objectFiles struct {
	dir  string          // the mirror's git directory
	have map[string]bool // the mirror's object files, relative to dir
	want map[string]bool // the repository's, as last listed
}

// maxListings is how many times a copy lists the repository's files when
// one of them went meanwhile (a git gc packing loose objects).
const maxListings = 3

func newObjectFiles(mirror *filesystem.Storage) (*objectFiles, error) {
	names, err := listObjectFiles(mirror)
	if err != nil {
		return nil, err
	}
	f := &objectFiles{dir: mirror.Filesystem().Root(), have: map[string]bool{}}
	for _, n := range names {
		f.have[n] = true
	}
	return f, nil
}

// listObjectFiles names a repository's object files, relative to its git
// directory: its loose objects, then its packs, each index before its pack.
// Loose objects come first, as git packs them before it removes them.
func listObjectFiles(st *filesystem.Storage) ([]string, error) {
	var names []string
	err := st.ForEachObjectHash(func(h plumbing.Hash) error {
		hex := h.String()
		names = append(names, filepath.Join("objects", hex[:2], hex[2:]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	packs, err := st.ObjectPacks()
	for _, h := range packs {
		base := filepath.Join("objects", "pack", "pack-"+h.String())
		names = append(names, base+".idx", base+".pack")
	}
	return names, err
}

// copyFrom copies the files of src the mirror lacks; added tells whether
// it copied a pack, which go-git must then look for.
func (f *objectFiles) copyFrom(src *filesystem.Storage) (added bool, err error) {
	from := src.Filesystem().Root()
	for range maxListings {
		var names []string
		if names, err = listObjectFiles(src); err != nil {
			return added, err
		}
		f.want = make(map[string]bool, len(names))
		for _, n := range names {
			f.want[n] = true
			if f.have[n] {
				continue
			}
			if err = f.copy(filepath.Join(from, n), n); err != nil {
				break
			}
			f.have[n] = true
			added = added || strings.HasSuffix(n, ".pack")
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return added, err
		}
	}
	return added, err
}

// copy copies the file at path to name in the mirror.
func (f *objectFiles) copy(path, name string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	dst := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// Not in the object's directory, where go-git would take the
	// temporary file for an object.
	tmp, err := os.CreateTemp(filepath.Join(f.dir, "objects"), "tmp_copy_")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// prune removes the mirror's files the repository did not list last, each
// pack before its index; removed tells whether a pack went. A file that
// cannot be removed stays, and is tried again next time.
func (f *objectFiles) prune() (removed bool) {
	for n := range f.have {
		if f.want[n] || strings.HasSuffix(n, ".idx") {
			continue
		}
		if err := os.Remove(filepath.Join(f.dir, n)); err == nil || errors.Is(err, fs.ErrNotExist) {
			delete(f.have, n)
			removed = removed || strings.HasSuffix(n, ".pack")
		}
	}
	for n := range f.have {
		if !f.want[n] && !f.have[strings.TrimSuffix(n, ".idx")+".pack"] {
			if err := os.Remove(filepath.Join(f.dir, n)); err == nil || errors.Is(err, fs.ErrNotExist) {
				delete(f.have, n)
			}
		}
	}
	return removed
}
