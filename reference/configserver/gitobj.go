package configserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/klauspost/compress/zlib"
)

// gitObject is one object read in full: its type, its content and, when it
// was read from a loose object file, that file's bytes and path, which the
// mirror stores as they are (a hard link where it can): a new tree of
// 10,000 entries is neither compressed nor written again.
type gitObject struct {
	typ   plumbing.ObjectType
	data  []byte
	loose []byte
	from  string // the loose object file, when read from one
}

// maxObjectSize bounds what one object may claim to hold, so that a corrupt
// header cannot make the copy allocate without limit.
const maxObjectSize = 1 << 30

// objectStore reads the objects of one repository: loose object files
// directly (the files a commit just wrote), everything else through go-git,
// opened on first need and closed by close.
type objectStore struct {
	objects string // the objects directory; "" to use go-git only
	open    func() (storer.EncodedObjectStorer, func(), error)
	st      storer.EncodedObjectStorer
	done    func()
}

func (s *objectStore) read(h plumbing.Hash) (*gitObject, error) {
	o, _, err := s.readLike(h, nil)
	if o != nil || err != nil {
		return o, err
	}
	return s.readStored(h)
}

// readStored reads h through go-git: an object that is not loose.
func (s *objectStore) readStored(h plumbing.Hash) (*gitObject, error) {
	if s.st == nil {
		st, done, err := s.open()
		if err != nil {
			return nil, err
		}
		s.st, s.done = st, done
	}
	obj, err := s.st.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	if obj.Size() > maxObjectSize {
		return nil, fmt.Errorf("object %s: %d bytes", h, obj.Size())
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	return &gitObject{typ: obj.Type(), data: data}, nil
}

// readLike reads the object h, likely a version of base's (nil for none),
// from its loose file: inflated from base where inflateLike takes it
// (fromParent), else whole. Nil without a loose file: readStored reads it.
func (s *objectStore) readLike(h plumbing.Hash, base *deflateIndex) (o *gitObject, fromParent bool, err error) {
	if s.objects == "" {
		return nil, false, nil
	}
	path := loosePath(s.objects, h)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("object %s: %w", h, err)
	}
	if base != nil {
		if text, _, err := inflateLike(b, base, h); err == nil {
			typ, _, nul, err := parseHeader(text)
			if err == nil {
				return &gitObject{typ: typ, data: text[nul+1:], loose: b, from: path}, true, nil
			}
		}
	}
	if o, err = inflateLoose(b); err != nil {
		return nil, false, fmt.Errorf("object %s: %w", h, err)
	}
	o.from = path
	return o, false, nil
}

// looseFile is the loose object file of h, its bytes and path, if there
// is one.
func (s *objectStore) looseFile(h plumbing.Hash) ([]byte, string) {
	if s.objects == "" {
		return nil, ""
	}
	path := loosePath(s.objects, h)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, ""
	}
	return b, path
}

func (s *objectStore) close() {
	if s.done != nil {
		s.done()
	}
	s.st, s.done = nil, nil
}

func loosePath(objects string, h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(objects, hex[:2], hex[2:])
}

// looseType reads the type of a loose object from the start of its file.
func looseType(objects string, h plumbing.Hash) (plumbing.ObjectType, error) {
	f, err := os.Open(loosePath(objects, h))
	if err != nil {
		return plumbing.InvalidObject, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return plumbing.InvalidObject, err
	}
	defer zr.Close()
	typ, _, _, _, err := looseHeader(zr)
	return typ, err
}

// zlibReaders are reused: a reader's state is some 40 KiB, as much as a
// small object.
var zlibReaders sync.Pool

// inflateLoose decodes a loose object file: zlib("<type> <size>\0" content).
func inflateLoose(b []byte) (*gitObject, error) {
	var zr io.ReadCloser
	var err error
	if r, ok := zlibReaders.Get().(io.ReadCloser); ok {
		zr, err = r, r.(zlib.Resetter).Reset(bytes.NewReader(b), nil)
	} else {
		zr, err = zlib.NewReader(bytes.NewReader(b))
	}
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(zr)
	typ, size, head, n, err := looseHeader(zr)
	if err != nil {
		return nil, err
	}
	nul := bytes.IndexByte(head[:n], 0)
	data := make([]byte, size)
	got := copy(data, head[nul+1:n])
	if int64(got) < size {
		if _, err := io.ReadFull(zr, data[got:]); err != nil {
			return nil, err
		}
	}
	if int64(n-nul-1) > size {
		return nil, errors.New("loose object longer than its header says")
	}
	return &gitObject{typ: typ, data: data, loose: b}, nil
}

// looseHeader reads "<type> <size>\0" and what followed it in the first
// bytes read.
func looseHeader(zr io.Reader) (typ plumbing.ObjectType, size int64, head [64]byte, n int, err error) {
	n, err = io.ReadFull(zr, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return typ, 0, head, n, err
	}
	typ, size, _, err = parseHeader(head[:n])
	return typ, size, head, n, err
}

// parseHeader reads "<type> <size>\0" at the start of a loose object's
// text, and where its NUL is.
func parseHeader(text []byte) (typ plumbing.ObjectType, size int64, nul int, err error) {
	nul = bytes.IndexByte(text[:min(len(text), 64)], 0)
	typName, sizeText, ok := bytes.Cut(text[:max(nul, 0)], []byte{' '})
	if nul < 0 || !ok {
		return typ, 0, nul, errors.New("malformed loose object header")
	}
	if typ, err = plumbing.ParseObjectType(string(typName)); err != nil {
		return typ, 0, nul, err
	}
	size, err = strconv.ParseInt(string(sizeText), 10, 64)
	if err != nil || size < 0 || size > maxObjectSize {
		return typ, 0, nul, fmt.Errorf("malformed loose object size %q", sizeText)
	}
	return typ, size, nul, nil
}

// deflateLoose encodes an object as a loose object file.
func deflateLoose(o *gitObject) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	fmt.Fprintf(zw, "%s %d\x00", o.typ, len(o.data))
	_, _ = zw.Write(o.data)
	_ = zw.Close()
	return buf.Bytes()
}

// writeLoose stores o as a loose object of objects, as git does: a hard
// link to the loose file it was read from where the file system allows
// (an object's file never changes, so two repositories may share it; git
// clones a local repository so), else written to a temporary file, then
// renamed into place, read-only.
func writeLoose(objects string, h plumbing.Hash, o *gitObject) (int64, error) {
	path := loosePath(objects, h)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	if o.from != "" && o.loose != nil && os.Link(o.from, path) == nil {
		return int64(len(o.loose)), nil
	}
	b := o.loose
	if b == nil {
		b = deflateLoose(o)
	}
	f, err := os.CreateTemp(objects, "tmp_obj_")
	if err != nil {
		return 0, err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return 0, err
	}
	return int64(len(b)), nil
}

// commitLinks reads a commit's tree and parents.
func commitLinks(data []byte) (tree plumbing.Hash, parents []plumbing.Hash, err error) {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		if len(line) == 0 {
			break
		}
		key, value, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			if tree, err = parseHex(value); err != nil {
				return tree, nil, err
			}
		case "parent":
			p, err := parseHex(value)
			if err != nil {
				return tree, nil, err
			}
			parents = append(parents, p)
		}
		data = rest
	}
	if tree.IsZero() {
		return tree, nil, errors.New("commit without a tree")
	}
	return tree, parents, nil
}

// tagTarget reads the object an annotated tag points to.
func tagTarget(data []byte) (plumbing.Hash, error) {
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	value, ok := bytes.CutPrefix(line, []byte("object "))
	if !ok {
		return plumbing.ZeroHash, errors.New("tag without an object")
	}
	return parseHex(value)
}

func parseHex(b []byte) (plumbing.Hash, error) {
	if !plumbing.IsHash(string(b)) {
		return plumbing.ZeroHash, fmt.Errorf("malformed object id %q", b)
	}
	return plumbing.NewHash(string(b)), nil
}
