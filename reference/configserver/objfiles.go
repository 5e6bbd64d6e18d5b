package configserver

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// objectFiles keeps the mirror's object files those of a repository on this
// machine, as git clone of a local path copies them: loose objects, and
// packs with their indexes, byte for byte. Nothing is parsed: go-git reads
// the copies. A file is copied to a
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

func newObjectFiles(dir string) (*objectFiles, error) {
	files, err := listObjectFiles(filepath.Join(dir, "objects"), 0)
	if err != nil {
		return nil, err
	}
	f := &objectFiles{dir: dir, have: map[string]bool{}}
	for _, o := range files {
		f.have[o.name] = true
	}
	return f, nil
}

// objectFile is an object file: its name in a git directory
// (objects/...), and where it is.
type objectFile struct{ name, path string }

// maxAlternates is how deep git follows objects/info/alternates.
const maxAlternates = 5

// listObjectFiles lists the object files of the objects directory objects,
// then of those it borrows from (objects/info/alternates, a path a line,
// relative to it, as git clone --shared writes): loose objects (xx/ and 38
// hex digits), then packs (pack/pack-ID.pack), each index before its pack.
// Loose objects come first, as git packs them before it removes them. The
// directories are read without a stat of each entry (go-git's listing
// takes one, and one per component of each path): 5-13 ms instead of
// 13-33 ms for 300 loose objects, on a 2-CPU VM shared with other work.
func listObjectFiles(objects string, depth int) ([]objectFile, error) {
	files, err := looseFiles(objects)
	if err == nil {
		var packs []objectFile
		packs, err = packFiles(objects)
		files = append(files, packs...)
	}
	if err != nil || depth == maxAlternates {
		return files, err
	}
	for _, alt := range alternates(objects) {
		more, err := listObjectFiles(alt, depth+1)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

func looseFiles(objects string) ([]objectFile, error) {
	dirs, err := os.ReadDir(objects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var files []objectFile
	for _, d := range dirs {
		if !d.IsDir() || !isHexName(d.Name(), 2) {
			continue
		}
		loose, err := os.ReadDir(filepath.Join(objects, d.Name()))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, o := range loose {
			if isHexName(o.Name(), 38) {
				files = append(files, objectFile{filepath.Join("objects", d.Name(), o.Name()), filepath.Join(objects, d.Name(), o.Name())})
			}
		}
	}
	return files, err
}

func packFiles(objects string) ([]objectFile, error) {
	packs, err := os.ReadDir(filepath.Join(objects, "pack"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var files []objectFile
	for _, p := range packs {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(p.Name(), "pack-"), ".pack"); ok && isHexName(id, 40) {
			for _, ext := range []string{".idx", ".pack"} {
				name := filepath.Join("pack", "pack-"+id+ext)
				files = append(files, objectFile{filepath.Join("objects", name), filepath.Join(objects, name)})
			}
		}
	}
	return files, err
}

// alternates are the objects directories objects borrows from.
func alternates(objects string) []string {
	b, _ := os.ReadFile(filepath.Join(objects, "info", "alternates"))
	var dirs []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && line[0] != '#' {
			if !filepath.IsAbs(line) {
				line = filepath.Join(objects, line)
			}
			dirs = append(dirs, line)
		}
	}
	return dirs
}

func isHexName(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "0123456789abcdef") == ""
}

// copyFrom copies the object files of the git directory from that the
// mirror lacks; added tells whether it copied a pack, which go-git must
// then look for.
func (f *objectFiles) copyFrom(from string) (added bool, err error) {
	for range maxListings {
		var files []objectFile
		if files, err = listObjectFiles(filepath.Join(from, "objects"), 0); err != nil {
			return added, err
		}
		f.want = make(map[string]bool, len(files))
		for _, o := range files {
			f.want[o.name] = true
			if f.have[o.name] {
				continue
			}
			if err = f.copy(o.path, o.name); err != nil {
				break
			}
			f.have[o.name] = true
			added = added || strings.HasSuffix(o.name, ".pack")
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
	for _, idx := range []bool{false, true} {
		for n := range f.have {
			if f.want[n] || strings.HasSuffix(n, ".idx") != idx || idx && f.have[strings.TrimSuffix(n, ".idx")+".pack"] {
				continue
			}
			if err := os.Remove(filepath.Join(f.dir, n)); err == nil || errors.Is(err, fs.ErrNotExist) {
				delete(f.have, n)
				removed = removed || strings.HasSuffix(n, ".pack")
			}
		}
	}
	return removed
}
