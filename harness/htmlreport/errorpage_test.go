package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// The page of a run that could not be carried out names the error (as text, whatever it holds), the exit status
// and the time, and points to the logs only when there are some.
func TestTheErrorPageNamesTheError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports")
	when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	path, err := WriteErrorDir(dir, ErrorPage{Message: "tck: the target cannot be tested: " + evil, Status: 3, Time: when, Logs: true})
	if err != nil || path != filepath.Join(dir, "index.html") {
		t.Fatalf("%s %v", path, err)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte("<script>window")) || !utf8.Valid(page) {
		t.Error("the error reached the page unescaped")
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	s := text(doc)
	for _, w := range []string{"could not be carried out", "the target cannot be tested: " + evilMarkup, "exit status3", "2026-03-04 05:06:07 UTC", "logs/"} {
		if !strings.Contains(s, w) {
			t.Errorf("the page does not say %q:\n%s", w, s)
		}
	}
	var buf bytes.Buffer
	if err := RenderError(&buf, ErrorPage{Message: "interrupted", Status: 130, Time: when}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "logs/") {
		t.Error("the page points to logs the run did not leave")
	}
}
