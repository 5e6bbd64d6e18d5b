//go:build linux

package configserver

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"slices"
	"syscall"
	"unsafe"
)

func newRefReader() refReader { return &rawRefReader{} }

const (
	dirFlags  = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC
	fileFlags = syscall.O_RDONLY | syscall.O_CLOEXEC
	direntMin = 19   // linux_dirent64 up to its name
	atFDCWD   = -100 // AT_FDCWD: a path relative to the working directory
)

// rawRefReader reads ref files with system calls and buffers it keeps
// between readings, since it reads them for every request: package os
// costs each regular file four fcntl calls and a failing epoll_ctl (it
// tries the network poller), sorts directory entries and allocates for each.
// Files are opened relative to their directory by the NUL-terminated names
// getdents returns.
type rawRefReader struct {
	cpath []byte   // a path NUL-terminated, for the kernel
	name  []byte   // the ref name of the directory being read
	top   string   // the directory loose was given, for error messages
	base  int      // len(name) at top
	dirs  [][]byte // each directory's entries, by depth
	file  [maxRefFile]byte
}

func (r *rawRefReader) loose(t []byte, dir, rel string) ([]byte, error) {
	fd, err := openat(atFDCWD, r.cstring(dir), dirFlags)
	if err != nil {
		return t, openError(dir, err)
	}
	defer syscall.Close(fd)
	r.name, r.top, r.base = append(r.name[:0], rel...), dir, len(rel)
	return r.walk(t, fd, 0)
}

// walk appends the loose refs of the open directory fd, r.name.
func (r *rawRefReader) walk(t []byte, fd, depth int) ([]byte, error) {
	ents, err := r.list(fd, depth)
	if err != nil {
		return t, &fs.PathError{Op: "readdirent", Path: r.path(nil), Err: err}
	}
	for len(ents) > 0 {
		var name []byte // NUL-terminated
		var typ byte
		if name, typ, ents, err = nextDirent(ents); err != nil {
			return t, &fs.PathError{Op: "readdirent", Path: r.path(nil), Err: err}
		}
		if t, err = r.entry(t, fd, depth, name, typ); err != nil {
			return t, err
		}
	}
	return t, nil
}

// entry appends the refs of one directory entry, as osRefReader does.
func (r *rawRefReader) entry(t []byte, fd, depth int, name []byte, typ byte) ([]byte, error) {
	base := name[:len(name)-1]
	if string(base) == "." || string(base) == ".." {
		return t, nil
	}
	if typ == syscall.DT_UNKNOWN { // some file systems do not say
		fi, err := os.Lstat(r.path(base))
		if err != nil {
			return t, ignoreNotExist(err)
		}
		if typ = syscall.DT_REG; fi.IsDir() {
			typ = syscall.DT_DIR
		}
	}
	switch {
	case typ == syscall.DT_DIR:
		return r.subdir(t, fd, depth, name)
	case bytes.HasSuffix(base, []byte(".lock")):
		return t, nil
	}
	n, err := r.readRef(fd, name)
	if err != nil {
		return t, err
	}
	return appendLoose(t, r.name, base, r.file[:n]), nil
}

// subdir appends the loose refs of a subdirectory; one removed meanwhile
// holds none.
func (r *rawRefReader) subdir(t []byte, fd, depth int, name []byte) ([]byte, error) {
	base := name[:len(name)-1]
	sub, err := openat(fd, &name[0], dirFlags)
	if err == syscall.ENOENT {
		return t, nil
	}
	if err != nil {
		return t, &fs.PathError{Op: "open", Path: r.path(base), Err: err}
	}
	defer syscall.Close(sub)
	n := len(r.name)
	r.name = append(append(r.name, '/'), base...)
	t, err = r.walk(t, sub, depth+1)
	r.name = r.name[:n]
	return t, err
}

// readRef reads up to maxRefFile bytes of a loose ref into r.file, reading
// until the buffer is full or the end of the file as io.ReadFull does; a
// file removed meanwhile is empty.
func (r *rawRefReader) readRef(dirfd int, name []byte) (int, error) {
	fd, err := openat(dirfd, &name[0], fileFlags)
	if err == syscall.ENOENT {
		return 0, nil
	}
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: r.path(name[:len(name)-1]), Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(r.file) {
		m, err := syscall.Read(fd, r.file[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: r.path(name[:len(name)-1]), Err: err}
		}
		if m <= 0 {
			break
		}
		n += m
	}
	return n, nil
}

// list reads all the entries of the open directory fd into the buffer of
// depth, which stays valid while deeper directories are read.
func (r *rawRefReader) list(fd, depth int) ([]byte, error) {
	for len(r.dirs) <= depth {
		r.dirs = append(r.dirs, make([]byte, 0, 4096))
	}
	b := r.dirs[depth][:0]
	for {
		if cap(b)-len(b) < 1024 {
			b = slices.Grow(b, cap(b))
		}
		n, err := syscall.Getdents(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		b = b[:len(b)+n]
	}
	r.dirs[depth] = b
	return b, nil
}

// nextDirent splits the first linux_dirent64 off b: its name with the NUL
// that ends it, and its type.
func nextDirent(b []byte) (name []byte, typ byte, rest []byte, err error) {
	if len(b) < direntMin {
		return nil, 0, nil, syscall.EIO
	}
	reclen := int(binary.NativeEndian.Uint16(b[16:18]))
	if reclen < direntMin || reclen > len(b) {
		return nil, 0, nil, syscall.EIO
	}
	i := bytes.IndexByte(b[direntMin:reclen], 0)
	if i < 0 {
		return nil, 0, nil, syscall.EIO
	}
	return b[direntMin : direntMin+i+1], b[18], b[reclen:], nil
}

func (r *rawRefReader) packed(t []byte, path string) ([]byte, error) {
	fd, err := openat(atFDCWD, r.cstring(path), fileFlags)
	if err != nil {
		return t, openError(path, err)
	}
	defer syscall.Close(fd)
	t, start := beginPacked(t)
	for {
		if cap(t)-len(t) < 512 {
			t = slices.Grow(t, 4096)
		}
		n, err := syscall.Read(fd, t[len(t):cap(t)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return t[:start], &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return endPacked(t, start), nil
		}
		t = t[:len(t)+n]
	}
}

func (r *rawRefReader) notDir(path string) bool {
	fd, err := openat(atFDCWD, r.cstring(path), dirFlags)
	if err == nil {
		syscall.Close(fd)
		return false
	}
	return err == syscall.ENOENT || err == syscall.ENOTDIR
}

// path is the file name of the directory being read, or of its entry name,
// as package os would give it in an error.
func (r *rawRefReader) path(name []byte) string {
	p := r.top + string(r.name[r.base:])
	if name != nil {
		p += "/" + string(name)
	}
	return p
}

// cstring is s NUL-terminated, in a buffer reused by the next call.
func (r *rawRefReader) cstring(s string) *byte {
	r.cpath = append(append(r.cpath[:0], s...), 0)
	return &r.cpath[0]
}

// openat is syscall.Openat without the copy syscall makes of the name to
// end it with a NUL: name is NUL-terminated already.
func openat(dirfd int, name *byte, flags int) (int, error) {
	for {
		fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(name)), uintptr(flags|syscall.O_LARGEFILE), 0, 0, 0)
		switch errno {
		case 0:
			return int(fd), nil
		case syscall.EINTR:
		default:
			return -1, errno
		}
	}
}

// openError is os.Open's error, but for a missing file: the caller takes
// that one for no refs, every round, and it should cost no allocation.
func openError(path string, err error) error {
	if err == syscall.ENOENT {
		return err
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

func ignoreNotExist(err error) error {
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
