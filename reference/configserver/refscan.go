package configserver

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
)

// refReader reads a git directory's ref files into the records of a reading
// (see recLoose). Errors are those package os gives for the same files,
// except that a missing one may be a bare fs.ErrNotExist: it is never shown.
type refReader interface {
	// loose appends the loose refs under dir, whose ref name is rel,
	// recursively; lock files are skipped, a file or directory removed
	// meanwhile is empty. Only a missing dir itself is fs.ErrNotExist.
	loose(t []byte, dir, rel string) ([]byte, error)
	// packed appends the packed-refs file at path; a missing one is
	// fs.ErrNotExist and appends nothing.
	packed(t []byte, path string) ([]byte, error)
	// notDir reports that path is certainly not a directory (as os.Stat
	// would say); false when unsure.
	notDir(path string) bool
}

// gitPaths are the files a reading opens in a git directory.
type gitPaths struct{ dir, heads, tags, packed string }

func newGitPaths(dir string) gitPaths {
	return gitPaths{
		dir:    dir,
		heads:  filepath.Join(dir, "refs", "heads"),
		tags:   filepath.Join(dir, "refs", "tags"),
		packed: filepath.Join(dir, "packed-refs"),
	}
}

// refScanner reads a local repository's branches and tags from its files
// for every freshness check, and tells when it read the very bytes of a
// reading already applied: an unchanged repository then costs a few system
// calls and no parsing. It compares contents, never timestamps or inode
// numbers, which can stay the same across a change. Not safe for concurrent
// use: the mirror's checks run one at a time.
type refScanner struct {
	path  string
	dirs  [2]gitPaths // path/.git, then path: gitDir's candidates
	found *gitPaths   // the git directory of the last reading, if any
	r     refReader

	cur     []byte  // the last reading
	ok      bool    // cur is complete
	last    []byte  // the reading remembered by remember
	lastFor *refMap // the refs last was remembered for
}

func newRefScanner(path string, r refReader) *refScanner {
	return &refScanner{path: path, dirs: [2]gitPaths{newGitPaths(filepath.Join(path, ".git")), newGitPaths(path)}, r: r}
}

// scan reads the ref files: loose refs before packed-refs, as git does, so
// that a ref being packed (written to packed-refs, then its loose file
// removed) is seen in one or the other. errNoGitDir means the path holds no
// git directory the scanner knows.
func (s *refScanner) scan() error {
	s.ok = false
	d, err := s.readHeads()
	if err != nil {
		return err
	}
	t, err := s.r.loose(s.cur, d.tags, "refs/tags")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if t, err = s.r.packed(t, d.packed); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	s.cur, s.ok = t, true
	return nil
}

// readHeads finds the git directory and reads its refs/heads into cur.
// Where it was found before, reading refs/heads proves what gitDir's stats
// would: opening path/.git/refs/heads proves path/.git a directory; for a
// bare repository, path/.git must not be one and opening path/refs/heads
// proves path/refs is. Anything else asks gitDir again.
func (s *refScanner) readHeads() (*gitPaths, error) {
	if d := s.found; d != nil && (d == &s.dirs[0] || s.r.notDir(s.dirs[0].dir)) {
		if t, err := s.r.loose(s.cur[:0], d.heads, "refs/heads"); err == nil {
			s.cur = t
			return d, nil
		}
	}
	s.found = nil
	dir, err := gitDir(s.path)
	if err != nil {
		return nil, err
	}
	d := &s.dirs[1]
	if dir == s.dirs[0].dir {
		d = &s.dirs[0]
	}
	t, err := s.r.loose(s.cur[:0], d.heads, "refs/heads")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	s.cur, s.found = t, d
	return d, nil
}

// refs parses the last reading.
func (s *refScanner) refs() (refMap, error) { return parseRefs(s.cur) }

// unchanged reports whether the last reading is, byte for byte, the one
// remembered for known: its refs are then known.
func (s *refScanner) unchanged(known *refMap) bool {
	return s.ok && known != nil && s.lastFor == known && bytes.Equal(s.cur, s.last)
}

// remember keeps the last reading as the one whose refs are known. A new
// known (another pointer) makes it unchanged for nothing.
func (s *refScanner) remember(known *refMap) {
	if !s.ok {
		return
	}
	s.last, s.cur, s.lastFor, s.ok = s.cur, s.last[:0], known, false
}
