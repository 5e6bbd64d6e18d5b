package configserver

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

const hashA, hashB, hashC = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"

// The scanner reads what git writes: packed refs, loose refs that override
// them, nested branch names, ref files that are symbolic links; not lock
// files, symbolic refs, peeled lines or other namespaces.
func TestReadRefFilesReadsPackedAndLooseRefs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"packed-refs":               "# pack-refs with: peeled fully-peeled sorted\n" + hashA + " refs/heads/master\n" + hashA + " refs/tags/v1\n^" + hashB + "\n" + hashA + " refs/remotes/x/y\n",
		"refs/heads/master":         hashB + "\n",
		"refs/heads/feature/x":      hashC + "\n",
		"refs/heads/feature/x.lock": hashA + "\n",
		"refs/heads/sym":            "ref: refs/heads/master\n",
		"refs/heads/long":           hashA + strings.Repeat(" ", maxRefFile),
		"refs/heads/empty/":         "",
		"refs/tags/nested/v2":       hashC,
		"refs/notes/commits":        hashA + "\n",
	})
	if err := os.Symlink(filepath.Join(dir, "refs/heads/master"), filepath.Join(dir, "refs/tags/link")); err != nil {
		t.Fatal(err)
	}
	want := refMap{
		"refs/remotes/origin/master":    plumbing.NewHash(hashB),
		"refs/remotes/origin/feature/x": plumbing.NewHash(hashC),
		"refs/remotes/origin/long":      plumbing.NewHash(hashA),
		"refs/tags/v1":                  plumbing.NewHash(hashA),
		"refs/tags/nested/v2":           plumbing.NewHash(hashC),
		"refs/tags/link":                plumbing.NewHash(hashB),
	}
	for name, r := range refReaders() {
		got, err := readRefs(dir, r)
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("%s: refs = %v, %v; want %v", name, got, err, want)
		}
	}
}

// A directory too large for one getdents buffer is read whole.
func TestReadRefFilesReadsLargeDirectories(t *testing.T) {
	dir := t.TempDir()
	files, want := map[string]string{}, refMap{}
	for i := range 500 {
		name := fmt.Sprintf("feature-with-a-long-name-to-fill-buffers-%03d", i)
		files["refs/heads/"+name] = hashA + "\n"
		want[plumbing.ReferenceName("refs/remotes/origin/"+name)] = plumbing.NewHash(hashA)
	}
	writeTree(t, dir, files)
	for name, r := range refReaders() {
		if got, err := readRefs(dir, r); err != nil || !maps.Equal(got, want) {
			t.Errorf("%s: %d refs, %v; want %d", name, len(got), err, len(want))
		}
	}
}

// A ref file that cannot be read is the error package os gives, naming the
// file, whichever reader runs.
func TestReadRefFilesErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"refs/heads/master": hashA + "\n", "refs/heads/sub/dir/": ""})
	if err := os.Symlink(filepath.Join(dir, "refs/heads/sub"), filepath.Join(dir, "refs/heads/sub/bad")); err != nil {
		t.Fatal(err)
	}
	want := "read " + filepath.Join(dir, "refs/heads/sub/bad") + ": is a directory"
	for name, r := range refReaders() {
		if _, err := readRefs(dir, r); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// A reading remembered for the known refs makes the next identical reading
// unchanged; any change to what git reads makes it changed, and a new known
// makes the old reading stand for nothing.
func TestScannerTellsUnchangedReadings(t *testing.T) {
	changes := []struct {
		name  string
		files map[string]string
	}{
		{"branch moved", map[string]string{"refs/heads/master": hashB + "\n"}},
		{"same hash rewritten", nil},
		{"nested branch added", map[string]string{"refs/heads/feature/x": hashA + "\n"}},
		{"tag added", map[string]string{"refs/tags/v1": hashC + "\n"}},
		{"packed-refs written", map[string]string{"packed-refs": hashA + " refs/tags/v0\n"}},
		{"packed ref moved", map[string]string{"packed-refs": hashB + " refs/tags/v0\n"}},
		{"branch deleted", map[string]string{"refs/heads/feature/x": "-"}},
	}
	for name, r := range refReaders() {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"refs/heads/master": hashA + "\n", "refs/tags/": ""})
		s := newRefScanner(dir, r)
		known := scanAndRemember(t, s)
		for _, c := range changes {
			if c.files == nil { // a new file, same bytes
				writeTree(t, dir, map[string]string{"refs/heads/master": "-"})
				writeTree(t, dir, map[string]string{"refs/heads/master": hashB + "\n"})
				if mustScan(t, s); !s.unchanged(known) {
					t.Errorf("%s: %s: unchanged bytes read as a change", name, c.name)
				}
				continue
			}
			writeTree(t, dir, c.files)
			if mustScan(t, s); s.unchanged(known) {
				t.Errorf("%s: %s: not seen", name, c.name)
			}
			known = scanAndRemember(t, s)
		}
		mustScan(t, s)
		if other := maps.Clone(*known); !s.unchanged(known) || s.unchanged(&other) {
			t.Errorf("%s: a reading must be unchanged for the refs it was remembered for only", name)
		}
	}
}

// A reading that failed is never remembered: the bytes left from an
// earlier reading do not stand for the refs the mirror holds then.
func TestFailedReadingIsNotRemembered(t *testing.T) {
	for name, r := range refReaders() {
		path := filepath.Join(t.TempDir(), "repo")
		writeTree(t, path, map[string]string{"refs/heads/master": hashA + "\n"})
		s := newRefScanner(path, r)
		mustScan(t, s)
		if err := os.Rename(path, path+".away"); err != nil {
			t.Fatal(err)
		}
		if err := s.scan(); !errors.Is(err, errNoGitDir) {
			t.Fatalf("%s: scan of a removed repository: %v", name, err)
		}
		other := refMap{}
		s.remember(&other)
		if err := os.Rename(path+".away", path); err != nil {
			t.Fatal(err)
		}
		if mustScan(t, s); s.unchanged(&other) {
			t.Errorf("%s: a failed reading was remembered", name)
		}
	}
}

// A ref being packed (git pack-refs writes packed-refs, then removes the
// loose file) is seen while it moves: loose refs are read first.
func TestRefBeingPackedIsNotMissed(t *testing.T) {
	for name, r := range refReaders() {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"refs/heads/master": hashA + "\n", "refs/tags/": ""})
		packRefs := func() {
			writeTree(t, dir, map[string]string{"packed-refs": hashA + " refs/heads/master\n"})
			writeTree(t, dir, map[string]string{"refs/heads/master": "-"})
		}
		got, err := readRefs(dir, &afterFirstRead{refReader: r, hook: packRefs})
		if want := plumbing.NewHash(hashA); err != nil || got["refs/remotes/origin/master"] != want {
			t.Errorf("%s: %v, %v; master missing while being packed", name, got, err)
		}
	}
}

// The git directory found once is confirmed, not assumed: a repository
// replaced by one of the other layout, or by something that is none, is
// read as gitDir would find it.
func TestScannerFollowsReplacedLayouts(t *testing.T) {
	bare := map[string]string{"refs/heads/master": hashA + "\n"}
	work := map[string]string{".git/refs/heads/master": hashB + "\n", "refs/heads/master": hashC + "\n"}
	gitFile := map[string]string{".git": "gitdir: /elsewhere\n", "README": "x"}
	steps := []struct {
		name  string
		files map[string]string
		want  string // the master hash; empty for errNoGitDir
	}{
		{"bare", bare, hashA},
		{"with a work tree holding refs/heads", work, hashB},
		{"bare again", bare, hashA},
		{"a .git file", gitFile, ""},
		{"with a work tree", work, hashB},
		{"removed", nil, ""},
	}
	for name, r := range refReaders() {
		path := filepath.Join(t.TempDir(), "repo")
		s := newRefScanner(path, r)
		for _, st := range steps {
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			if st.files != nil {
				writeTree(t, path, st.files)
			}
			err := s.scan()
			if st.want == "" {
				if !errors.Is(err, errNoGitDir) {
					t.Errorf("%s: %s: %v, want errNoGitDir", name, st.name, err)
				}
				continue
			}
			refs, _ := s.refs()
			if got := refs["refs/remotes/origin/master"]; err != nil || got != plumbing.NewHash(st.want) {
				t.Errorf("%s: %s: master %s, %v; want %s", name, st.name, got, err, st.want)
			}
		}
	}
}

// Parsing a damaged reading stops without a panic.
func TestParseRefsOfTruncatedReadings(t *testing.T) {
	var rec []byte
	rec = appendLoose(rec, "refs/heads", "master", []byte(hashA+"\n"))
	rec, start := beginPacked(rec)
	rec = endPacked(append(rec, hashB+" refs/tags/v1\n"...), start)
	rec = appendLoose(rec, "refs/tags", "v2", []byte(hashC))
	for i := range len(rec) + 1 {
		if _, err := parseRefs(rec[:i]); err != nil {
			t.Fatalf("prefix %d: %v", i, err)
		}
	}
	if refs, _ := parseRefs(rec); len(refs) != 3 {
		t.Fatalf("whole reading: %v", refs)
	}
}

// refReaders are the readers under test, each on its own.
func refReaders() map[string]refReader {
	return map[string]refReader{"os": newRefReader()}
}

// readRefs reads the refs of the repository at path with r.
func readRefs(path string, r refReader) (refMap, error) {
	s := newRefScanner(path, r)
	if err := s.scan(); err != nil {
		return nil, err
	}
	return s.refs()
}

func mustScan(t *testing.T, s *refScanner) {
	t.Helper()
	if err := s.scan(); err != nil {
		t.Fatal(err)
	}
}

// scanAndRemember reads and remembers the reading for its refs, as the
// mirror does once it applied them.
func scanAndRemember(t *testing.T, s *refScanner) *refMap {
	t.Helper()
	mustScan(t, s)
	refs, err := s.refs()
	if err != nil {
		t.Fatal(err)
	}
	s.remember(&refs)
	mustScan(t, s)
	if !s.unchanged(&refs) {
		t.Fatal("the reading just remembered reads as changed")
	}
	return &refs
}

// writeTree writes files under dir: a name ending in / is a directory, the
// content "-" removes the file.
func writeTree(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		var err error
		switch {
		case content == "-":
			err = os.Remove(path)
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(path, 0o755)
		default:
			if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
				err = os.WriteFile(path+".tmp", []byte(content), 0o644)
			}
			if err == nil { // as git does: a new file renamed into place
				err = os.Rename(path+".tmp", path)
			}
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// afterFirstRead runs hook once, after the first file the reader reads.
type afterFirstRead struct {
	refReader
	hook func()
	done bool
}

func (a *afterFirstRead) after() {
	if !a.done {
		a.done = true
		a.hook()
	}
}

func (a *afterFirstRead) loose(t []byte, dir, rel string) ([]byte, error) {
	defer a.after()
	return a.refReader.loose(t, dir, rel)
}

func (a *afterFirstRead) packed(t []byte, path string) ([]byte, error) {
	defer a.after()
	return a.refReader.packed(t, path)
}
