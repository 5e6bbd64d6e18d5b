// Package conformance runs the fortune-tck suite from an implementer's own Go test, as Gateway API's
// conformance.RunConformanceWithOptions(t, opts) runs theirs:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Options{
//			TargetFile: "testdata/target.yaml",     // or Target: &target.Target{...}
//			ExpectFile: "testdata/expectations.yaml", // the known differences, optional
//		})
//	}
//
// The services must be running (started by the test, or by whatever runs it); every scenario becomes a subtest
// named by its stable ID (go test -run 'TestConformance/auth/tokens' shows some), with the suite's outcome:
// passed passes; failed or blocked fails with its message, unless the expectations file expects it (then it
// passes and logs the entry); not supported, not under test and left out by Tags are skipped with why. An entry
// of the expectations file that did not happen fails the test too. The reports (junit.xml, index.html, ...) go
// to ReportsDir.
package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/ciformat"
	"github.com/fortune-tck/fortune-tck/harness/expect"
	"github.com/fortune-tck/fortune-tck/target"
)

// Options configure a run from a Go test.
type Options struct {
	// Target describes the implementation as a target file does; TargetFile is such a file to read instead.
	// Give one of the two. Services given as container images are for tck run: start them yourself here.
	Target     *target.Target
	TargetFile string
	// ExpectFile is an expectations file (tck run --expect): the known differences. Without one, every failed
	// or blocked scenario fails the test.
	ExpectFile string
	// Tags is a godog tag expression that narrows the scenarios ("@spec-4.4", "~@browser").
	Tags string
	// ReportsDir receives the reports; empty means a folder of the test's own (t.TempDir()), logged.
	ReportsDir string
	// Concurrency is how many scenarios run at once; 0 means harness.DefaultConcurrency.
	Concurrency int
	// Features replaces the built-in features (os.DirFS of a folder).
	Features fs.FS
}

// Run runs the suite against the target and reports each scenario as a subtest of t. It returns the harness's
// result (nil when the run could not be done, which fails t).
func Run(t *testing.T, opts Options) *harness.Result {
	t.Helper()
	fsys := opts.Features
	if fsys == nil {
		fsys = features.FS
	}
	tg, err := loadTarget(opts)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	var expected *expect.File
	if opts.ExpectFile != "" {
		cat, err := catalog.Load(fsys)
		if err != nil {
			t.Fatalf("conformance: loading the features: %v", err)
		}
		if expected, err = expect.Load(opts.ExpectFile, cat); err != nil {
			t.Fatalf("conformance: the expectations file:\n%v", err)
		}
	}
	if err := harness.CheckTags(opts.Tags, fsys); err != nil {
		t.Fatalf("conformance: Tags: %v", err)
	}
	reports := opts.ReportsDir
	if reports == "" {
		reports = t.TempDir()
	}
	out := &logWriter{t: t}
	res, err := harness.Run(t.Context(), harness.Options{Target: tg, Tags: opts.Tags, ReportsDir: reports, Output: out,
		Features: fsys, Concurrency: opts.Concurrency, Expect: expected})
	out.flush()
	if err != nil {
		t.Fatalf("conformance: the run could not be done: %v", err)
	}
	t.Logf("reports in %s", reports)
	if err := subtests(t, filepath.Join(reports, "cucumber.json")); err != nil {
		t.Fatalf("conformance: reading the run's outcomes: %v", err)
	}
	if e := res.Report.Expectations; e != nil {
		for _, s := range e.DidNotHappen {
			t.Errorf("%s:%d: %s was expected %s, and was %s: remove the entry", e.File, s.Line, s.ID, expect.OutcomeName(s.Expected), s.Actual)
		}
	}
	return res
}

// loadTarget is the target of the options, validated as a target file is.
func loadTarget(opts Options) (*target.Target, error) {
	var tg *target.Target
	switch {
	case opts.Target != nil && opts.TargetFile != "":
		return nil, errors.New("give Target or TargetFile, not both")
	case opts.TargetFile != "":
		t, err := target.Load(opts.TargetFile)
		if err != nil {
			return nil, err
		}
		tg = t
	case opts.Target != nil:
		data, err := yaml.Marshal(opts.Target)
		if err != nil {
			return nil, err
		}
		if tg, err = target.Parse(data); err != nil {
			return nil, fmt.Errorf("the target:\n%w", err)
		}
	default:
		return nil, errors.New("no target: give Target or TargetFile")
	}
	if c := tg.Containers(); len(c) > 0 {
		return nil, fmt.Errorf("the target gives services as container images (%s): tck run starts those; from a Go test, start them yourself and give their URLs", c[0].Field)
	}
	return tg, nil
}

// subtests reports each scenario of the run as a subtest with its outcome.
func subtests(t *testing.T, cucumberJSON string) error {
	outcomes, err := ciformat.ReadOutcomes(cucumberJSON)
	if err != nil {
		return err
	}
	for _, o := range outcomes {
		t.Run(o.ID, func(t *testing.T) {
			switch o.Outcome {
			case features.Passed:
			case features.Failed, features.Blocked:
				if o.Expected != "" {
					t.Logf("%s as expected by %s: %s", o.Outcome, o.Expected, firstLine(o.Reason))
					return
				}
				t.Errorf("%s: %s", o.Outcome, o.Reason)
			default:
				t.Skipf("%s: %s", label(o.Outcome), o.Reason)
			}
		})
	}
	return nil
}

func label(o features.Outcome) string {
	if o == features.Unsupported {
		return "not supported"
	}
	return string(o)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// logWriter hands the run's terminal output to t.Log a line at a time.
type logWriter struct {
	mu   sync.Mutex
	t    *testing.T
	line []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			w.t.Log(string(w.line))
			w.line = w.line[:0]
			continue
		}
		w.line = append(w.line, b)
	}
	return len(p), nil
}

func (w *logWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.line) > 0 {
		w.t.Log(string(w.line))
		w.line = nil
	}
}
