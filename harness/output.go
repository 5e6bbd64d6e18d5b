package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/steps/core"
)

// What a run shows passes through two points that make it safe, whatever the target sent: the text of every
// message (clean: secrets masked by value, control characters escaped), and the writers of the terminal and
// of the report files, which mask the secrets again as the last thing before the bytes leave the harness.
//
//   - cleaner.text is applied to each scenario's message as it is recorded (the conformance report, the
//     summary), and to the error of a run;
//   - terminal wraps the terminal (Options.Output): lines are masked and their control characters escaped,
//     the colour sequences of the harness's own formats excepted;
//   - maskReports rewrites the report files of the folder (conformance-report.yaml, junit.xml,
//     cucumber.json, index.html) with every secret masked, once they are written: whoever writes them, they
//     pass through it.

// cleaner makes target text safe to show.
type cleaner struct{ secrets *core.Secrets }

// text masks the secrets in s (by value, and the secret parameters of URLs by name) and escapes its control
// characters.
func (c cleaner) text(s string) string { return core.MaskParams(c.secrets.Mask(core.Printable(s))) }

// cleanError is an error whose message was made safe to show; errors.Is and As see the error it cleans.
type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }

// error cleans err's message; nil stays nil.
func (c cleaner) error(err error) error {
	if err == nil {
		return nil
	}
	return &cleanError{msg: c.text(err.Error()), err: err}
}

// sgr are the colour sequences of the harness's own formats and godog's (a colour, bold or not, and the
// reset), the only escape sequences the terminal keeps: they can colour text and do nothing else.
var sgr = regexp.MustCompile(`\x1b\[(?:1;)?3[0-7]m|\x1b\[0m`)

// terminal is the terminal of a run: what is written to it goes out line by line, secrets masked and control
// characters escaped but for the colour sequences of sgr (the messages of the summary were cleaned before,
// where they were recorded; godog's pretty format prints a step's error as the step returned it).
// A line longer than maxLine goes out in pieces, each masked before it is cut from the rest.
type terminal struct {
	mu  sync.Mutex
	w   io.Writer
	c   cleaner
	buf []byte
}

// maxLine is how much of a line the terminal holds back before it writes it out.
const maxLine = 64 << 10

func newTerminal(w io.Writer, c cleaner) *terminal { return &terminal{w: w, c: c} }

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		if err := t.emit(t.buf[:i+1]); err != nil {
			return len(p), err
		}
		t.buf = t.buf[i+1:]
	}
	if keep := max(0, t.c.secrets.Longest()-1); len(t.buf) > maxLine+keep {
		// Masked whole first: a secret that ends in the buffer is masked wherever it starts, and one that
		// does not end in it yet starts within its last keep bytes, which wait for the next write.
		masked := t.c.secrets.MaskBytes(t.buf)
		cut := len(masked) - keep
		if err := t.emit(masked[:cut]); err != nil {
			return len(p), err
		}
		t.buf = append([]byte(nil), masked[cut:]...)
	}
	if len(t.buf) == 0 {
		t.buf = nil
	}
	return len(p), nil
}

// Flush writes out what is held back.
func (t *terminal) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.emit(t.buf)
	t.buf = nil
	return err
}

func (t *terminal) emit(line []byte) error {
	if len(line) == 0 {
		return nil
	}
	s := string(line)
	var out strings.Builder
	last := 0
	for _, m := range sgr.FindAllStringIndex(s, -1) {
		out.WriteString(core.Printable(s[last:m[0]]))
		out.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	out.WriteString(core.Printable(s[last:]))
	_, err := io.WriteString(t.w, t.c.secrets.Mask(out.String()))
	return err
}

// vocabulary is the suite's own text: its features (and whatever else the folder holds, sections.yaml), the
// IDs of its scenarios and the words of its report formats. A secret that is a word of it is weak
// (core.Secrets): masking it in messages and report files would cut the suite's own words, a demo client's
// secret "secret" the scenario named "...-with-a-wrong-secret".
func vocabulary(fsys fs.FS, cat *catalog.Catalog) string {
	var b strings.Builder
	_ = fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := fs.ReadFile(fsys, path); err == nil {
				b.Write(data)
				b.WriteByte('\n')
			}
		}
		return nil
	})
	for _, sc := range cat.Scenarios {
		b.WriteString(sc.ID() + "\n")
	}
	b.WriteString(reportWords)
	return b.String()
}

// reportWords are the keys and names of the report formats, which masking must leave whole.
const reportWords = `keyword elements embeddings mime_type media status passed failed skipped undefined pending ambiguous
duration description location match result steps name line type tags uri data error_message background scenario
feature testsuites testsuite testcase failure error message classname tests failures errors time properties
property implementation organization project version contact profiles core extended summary statistics
supportedFeatures unsupportedFeatures untestedServices scenarios reason cause outcome blocked notSupported
notUnderTest success partial leftBehind conformance exchanges requestHeaders requestBody responseHeaders
responseBody responseBodySize received method`

// reportFiles are the files of a run that maskReports rewrites.
var reportFiles = []string{"conformance-report.yaml", "junit.xml", "cucumber.json", "index.html", "summary.md"}

// maskReports masks every secret of the run in the report files of dir, in place; a file that is not there is
// none of this run's.
func maskReports(dir string, secrets *core.Secrets) error {
	var errs []error
	for _, name := range reportFiles {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil {
			if masked := secrets.MaskBytes(data); !bytes.Equal(masked, data) {
				err = os.WriteFile(path, masked, 0o644)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("masking the secrets of %s: %w", path, err))
		}
	}
	return errors.Join(errs...)
}
