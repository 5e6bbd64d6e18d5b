package configserver

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// newRefReader is the reader of a local repository's refs.
func newRefReader() refReader { return osRefReader{} }

// osRefReader reads ref files through package os. A reader of raw system
// calls (getdents, openat on reused buffers) was tried: once concurrent
// requests share a check (coalesce.go) it made no difference the load
// figure could show, for 300 lines and package unsafe.
type osRefReader struct{}

func (r osRefReader) loose(t []byte, dir, rel string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return t, err
	}
	var buf [maxRefFile]byte
	for _, e := range entries {
		name, path := rel+"/"+e.Name(), filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if t, err = r.loose(t, path, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return t, err
			}
		case strings.HasSuffix(name, ".lock"): // git renames it into place
		default:
			n, err := readRefFile(path, buf[:])
			if err != nil {
				return t, err
			}
			t = appendLoose(t, rel, e.Name(), buf[:n])
		}
	}
	return t, nil
}

// readRefFile reads up to len(buf) bytes of a loose ref; a file deleted
// meanwhile is empty.
func readRefFile(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return n, nil
}

func (osRefReader) packed(t []byte, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	t, start := beginPacked(t)
	return endPacked(append(t, b...), start), nil
}

func (osRefReader) notDir(path string) bool {
	fi, err := os.Stat(path)
	return err != nil || !fi.IsDir()
}
