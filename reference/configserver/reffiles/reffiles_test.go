package reffiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hash(c byte) string { return strings.Repeat(string(c), 40) + "\n" }

// Every kind of change to the ref files is a change; reading them again
// unchanged is not, once a reading is kept; one not kept stays a change.
func TestChangesAreSeenAndSameBytesAreNot(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "HEAD", "ref: refs/heads/master\n")
	write(t, dir, "refs/heads/master", hash('a'))
	r := New(dir)
	if !r.Changed() {
		t.Fatal("the first reading is a change: nothing was kept")
	}
	r.Keep()
	steps := []struct {
		name   string
		change func()
	}{
		{"a branch moved (same size)", func() { write(t, dir, "refs/heads/master", hash('b')) }},
		{"a branch added in a folder", func() { write(t, dir, "refs/heads/feature/x", hash('c')) }},
		{"a tag added", func() { write(t, dir, "refs/tags/v1", hash('d')) }},
		{"refs packed", func() {
			write(t, dir, "packed-refs", "# pack-refs with: peeled\n"+strings.TrimSpace(hash('c'))+" refs/heads/feature/x\n")
			_ = os.Remove(filepath.Join(dir, "refs", "heads", "feature", "x"))
		}},
		{"a packed ref moved", func() {
			write(t, dir, "packed-refs", "# pack-refs with: peeled\n"+strings.TrimSpace(hash('e'))+" refs/heads/feature/x\n")
		}},
		{"HEAD moved", func() { write(t, dir, "HEAD", "ref: refs/heads/feature/x\n") }},
		{"a branch deleted", func() { _ = os.Remove(filepath.Join(dir, "refs", "tags", "v1")) }},
		{"the refs folder gone", func() { _ = os.RemoveAll(filepath.Join(dir, "refs")) }},
	}
	for _, s := range steps {
		s.change()
		if !r.Changed() {
			t.Fatalf("%s: not seen", s.name)
		}
		if !r.Changed() {
			t.Fatalf("%s: seen once, then forgotten before Keep", s.name)
		}
		r.Keep()
		if r.Changed() {
			t.Fatalf("%s: the same bytes read again are a change", s.name)
		}
		if _, err := os.Stat(filepath.Join(dir, "refs", "heads")); err == nil {
			write(t, dir, "refs/heads/master.lock", hash('f')) // git's lock files are not refs
			if r.Changed() {
				t.Fatalf("%s: a lock file is a change", s.name)
			}
			_ = os.Remove(filepath.Join(dir, "refs", "heads", "master.lock"))
			r.Keep()
		}
	}
	r.Forget()
	if !r.Changed() {
		t.Fatal("after Forget: not a change")
	}
}

// A linked work tree's refs live in another directory too: its reading is
// never unchanged.
func TestALinkedWorkTreeIsAlwaysChanged(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "HEAD", "ref: refs/heads/master\n")
	write(t, dir, "commondir", "../..\n")
	r := New(dir)
	for range 3 {
		if !r.Changed() {
			t.Fatal("a git directory with a commondir read as unchanged")
		}
		r.Keep()
	}
}

// An unreadable ref file is a change, and its reading is not kept.
func TestAnUnreadableFileIsAChange(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir := t.TempDir()
	write(t, dir, "HEAD", "ref: refs/heads/master\n")
	write(t, dir, "refs/heads/master", hash('a'))
	r := New(dir)
	r.Changed()
	r.Keep()
	if err := os.Chmod(filepath.Join(dir, "refs", "heads", "master"), 0); err != nil {
		t.Fatal(err)
	}
	if !r.Changed() {
		t.Fatal("an unreadable ref read as unchanged")
	}
}

// Loose names the reading's ref files under refs/ that hold something: not
// HEAD or packed-refs, not a lock file, not an empty file.
func TestLooseListsTheRefFilesOfTheReading(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "HEAD", "ref: refs/heads/master\n")
	write(t, dir, "packed-refs", hash('p'))
	write(t, dir, "refs/heads/master", hash('a'))
	write(t, dir, "refs/heads/feature/x", hash('b'))
	write(t, dir, "refs/heads/master.lock", hash('c'))
	write(t, dir, "refs/heads/being-written", "")
	write(t, dir, "refs/tags/v1", hash('d'))
	r := New(dir)
	r.Changed()
	got := strings.Join(r.Loose(), " ")
	if want := "refs/heads/feature/x refs/heads/master refs/tags/v1"; got != want {
		t.Errorf("Loose() = %q, want %q", got, want)
	}
	if err := os.Remove(filepath.Join(dir, "refs", "tags", "v1")); err != nil {
		t.Fatal(err)
	}
	r.Changed()
	if got := strings.Join(r.Loose(), " "); got != "refs/heads/feature/x refs/heads/master" {
		t.Errorf("after the tag went, Loose() = %q", got)
	}
}
