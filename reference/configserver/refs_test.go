package configserver

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// readRefFiles reads what git writes: packed refs, loose refs that
// override them, nested branch names; not lock files, symbolic refs,
// peeled lines or other namespaces.
func TestReadRefFilesReadsPackedAndLooseRefs(t *testing.T) {
	const a, b, c = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"
	dir := t.TempDir()
	files := map[string]string{
		"packed-refs":               "# pack-refs with: peeled fully-peeled sorted\n" + a + " refs/heads/master\n" + a + " refs/tags/v1\n^" + b + "\n" + a + " refs/remotes/x/y\n",
		"refs/heads/master":         b + "\n",
		"refs/heads/feature/x":      c + "\n",
		"refs/heads/feature/x.lock": a + "\n",
		"refs/heads/sym":            "ref: refs/heads/master\n",
		"refs/tags/nested/v2":       c,
		"refs/notes/commits":        a + "\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readRefFiles(dir)
	want := refMap{
		"refs/remotes/origin/master":    plumbing.NewHash(b),
		"refs/remotes/origin/feature/x": plumbing.NewHash(c),
		"refs/tags/v1":                  plumbing.NewHash(a),
		"refs/tags/nested/v2":           plumbing.NewHash(c),
	}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("readRefFiles = %v, %v; want %v", got, err, want)
	}
}
