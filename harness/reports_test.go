package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ClearReports removes an earlier run's reports, page, screenshots and logs, and nothing else of the folder.
func TestClearReportsRemovesOnlyWhatARunWrites(t *testing.T) {
	dir := t.TempDir()
	ours := append(slices.Clone(RunFiles), "logs/reference.log", "logs/configapp-1-x.log", "greeting-fortune.png")
	theirs := []string{"README.md", "interop/x/conformance-report.yaml", "interop/x/shot.png", "logs/notes.txt", "spec.html"}
	for _, f := range append(slices.Clone(ours), theirs...) {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := ClearReports(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range ours {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", f, err)
		}
	}
	for _, f := range theirs {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
	if err := ClearReports(filepath.Join(dir, "none")); err != nil {
		t.Errorf("a folder that does not exist: %v", err)
	}
}
