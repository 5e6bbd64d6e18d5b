package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RunFiles are the files a run writes at the top of its reports folder; its service logs go to logs/*.log, and
// the screenshots scenarios take (reports/greeting-fortune.png) to *.png beside them.
var RunFiles = []string{"conformance-report.yaml", "junit.xml", "cucumber.json", "summary.md", "badge.svg", "index.html"}

// ClearReports removes what an earlier run wrote into dir (RunFiles, *.png and logs/*.log), so that a run that
// stops before writing its own reports leaves no old verdict or evidence that looks like its own. Anything else
// in dir stays; a dir that does not exist yet is nothing to clear.
func ClearReports(dir string) error {
	paths := make([]string, 0, len(RunFiles))
	for _, f := range RunFiles {
		paths = append(paths, filepath.Join(dir, f))
	}
	logs := filepath.Join(dir, "logs")
	entries, err := os.ReadDir(logs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s to remove an earlier run's logs: %w", logs, err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".log") {
			paths = append(paths, filepath.Join(logs, e.Name()))
		}
	}
	shots, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		return err
	}
	paths = append(paths, shots...)
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing an earlier run's %s: %w", p, err)
		}
	}
	return nil
}
