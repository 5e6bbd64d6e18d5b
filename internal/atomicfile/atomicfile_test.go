package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A manifest the harness writes is read by a gateway that may run as another user: 0644, not CreateTemp's 0600.
func TestWriteLeavesAFileEveryUserMayRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.yaml")
	if err := Write(path, []byte("kind: HTTPRoute\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files in the folder, want the file alone (no temporary file left)", len(entries))
	}
}
