package harness

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/badge"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/ciformat"
	"github.com/fortune-tck/fortune-tck/harness/expect"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// The files for CI systems and READMEs that a run writes beside conformance-report.yaml, from its own model
// (ciformat, badge): godog's junit and cucumber formatters are no longer the source of any outcome. godog's
// cucumber JSON is kept in memory only, for the steps' results and attachments.

// captureFormat is the godog formatter that writes godog's cucumber JSON into the buffer of the run whose suite
// name it is given.
const captureFormat = "tck-capture"

var (
	captures   sync.Map // suite name -> *bytes.Buffer
	captureSeq atomic.Int64
)

func init() {
	godog.Format(captureFormat, "Keeps godog's cucumber JSON in memory for the harness's own reports.",
		func(suite string, _ io.Writer) godog.Formatter {
			var w io.Writer = io.Discard
			if b, ok := captures.Load(suite); ok {
				w = b.(*bytes.Buffer)
			}
			return godog.NewCukeFmt(suite, w)
		})
}

// capture is one run's godog cucumber JSON.
type capture struct {
	suite string
	buf   *bytes.Buffer
}

// newCapture gives a run a suite name of its own, under which the formatter finds its buffer.
func newCapture() *capture {
	c := &capture{suite: fmt.Sprintf("fortune-tck#%d", captureSeq.Add(1)), buf: &bytes.Buffer{}}
	captures.Store(c.suite, c.buf)
	return c
}

// done releases the buffer and returns what godog wrote.
func (c *capture) done() []byte {
	captures.Delete(c.suite)
	return c.buf.Bytes()
}

// judge sets the report's expectations when the run has an expectations file.
func judge(opts Options, cat *catalog.Catalog, res *report.Results, rep *report.ConformanceReport) {
	if opts.Expect == nil {
		return
	}
	outcomes := make(map[string]features.Outcome, len(res.Outcomes))
	for id, o := range res.Outcomes {
		outcomes[id] = o
	}
	rep.Expectations = expect.Judge(opts.Expect, cat, expect.Run{Report: *rep, Outcomes: outcomes, Reasons: res.Messages})
}

// writeCIFiles writes junit.xml, cucumber.json, badge.svg and summary.md. A file it cannot write is a warning:
// the conformance report, written before, stands.
func writeCIFiles(opts Options, cat *catalog.Catalog, areas []features.Area, res *report.Results, rep report.ConformanceReport, r *Result, godogJSON []byte) {
	expected := map[string]string{}
	if e := rep.Expectations; e != nil {
		for _, x := range e.Expected {
			expected[x.Name] = fmt.Sprintf("%s, line %d of %s", x.By, x.Line, e.File)
		}
	}
	verdict := func(s catalog.Scenario) ciformat.Verdict {
		o, why := outcomeOf(s, areas, res)
		return ciformat.Verdict{Outcome: o, Reason: why, Expected: expected[s.ID()]}
	}
	run, err := ciformat.Build(opts.Features, cat, featureFiles(cat), verdict, godogJSON)
	if err != nil {
		fmt.Fprintf(opts.Output, "Warning: no junit.xml or cucumber.json: %v\n", err)
		return
	}
	run.Name, run.Elapsed, run.Started = "fortune-tck", r.Elapsed, opts.Now().Add(-r.Elapsed)
	badgeSVG, err := badge.SVG(badge.Of(rep, r.Passed, r.Passed+r.Failed+r.Blocked))
	if err != nil {
		fmt.Fprintf(opts.Output, "Warning: no badge.svg: %v\n", err)
	}
	files := []struct {
		name   string
		render func() ([]byte, error)
	}{
		{"junit.xml", func() ([]byte, error) { return ciformat.JUnit(run) }},
		{"cucumber.json", func() ([]byte, error) { return ciformat.Cucumber(run) }},
		{"badge.svg", func() ([]byte, error) { return badgeSVG, err }},
		{"summary.md", func() ([]byte, error) { return []byte(ciformat.Markdown(rep, run, badgeSVG)), nil }},
	}
	for _, f := range files {
		data, err := f.render()
		if err == nil {
			err = os.WriteFile(filepath.Join(opts.ReportsDir, f.name), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(opts.Output, "Warning: no %s: %v\n", f.name, err)
		}
	}
}

// featureFiles are the feature files of the catalog, in its order.
func featureFiles(cat *catalog.Catalog) []string {
	var out []string
	for _, s := range cat.Scenarios {
		if !slices.Contains(out, s.URI) {
			out = append(out, s.URI)
		}
	}
	return out
}

// outcomeOf is a scenario's outcome and why, in words: the recorded message of a failed or blocked one, what
// the target lacks for one not supported or not under test.
func outcomeOf(s catalog.Scenario, areas []features.Area, res *report.Results) (features.Outcome, string) {
	if !slices.Contains(areas, s.Area) {
		return features.NotUnderTest, fmt.Sprintf("the target declares no %s service, so the %s area is not under test", s.Area.Primary(), s.Area)
	}
	o := res.Get(s)
	switch o {
	case features.Failed, features.Blocked:
		return o, res.Messages[s.ID()]
	case features.Skipped:
		return o, "left out by --tags"
	case features.Unsupported, features.NotUnderTest:
		var needs []string
		for _, m := range res.Missing[s.ID()] {
			if m.Kind == report.NeedsService {
				needs = append(needs, "the "+m.Name+" service")
			} else {
				needs = append(needs, m.String())
			}
		}
		return o, "it needs " + strings.Join(needs, ", ") + ", which the target does not declare"
	}
	return o, ""
}

// OK tells whether the run passes: no failed or blocked scenario, or, judged against an expectations file, none
// that the file does not expect and no entry of the file that did not happen.
func (r *Result) OK() bool {
	if e := r.Report.Expectations; e != nil {
		return e.Met()
	}
	return r.Failed == 0 && r.Blocked == 0
}

// printExpectations prints the run judged against its expectations file, after the failed and blocked lists
// (which then hold only the unexpected).
func printExpectations(w io.Writer, e *report.Expectations) {
	if e == nil {
		return
	}
	fmt.Fprintf(w, "Against the expectations of %s:\n", e.File)
	if n := len(e.Expected); n > 0 {
		by := map[string]int{}
		var order []string
		for _, x := range e.Expected {
			key := fmt.Sprintf("%s (line %d)", x.By, x.Line)
			if by[key] == 0 {
				order = append(order, key)
			}
			by[key]++
		}
		fmt.Fprintf(w, "  expected, still failing: %d scenarios, as expected by\n", n)
		for _, k := range order {
			fmt.Fprintf(w, "      %s: %d\n", k, by[k])
		}
	}
	if len(e.Unexpected) > 0 {
		fmt.Fprintln(w, "  unexpected (no entry expects them; listed above):")
		for _, u := range e.Unexpected {
			line := fmt.Sprintf("      %s %s", u.Outcome, u.Name)
			if u.Expected != "" {
				line += fmt.Sprintf(" (the file expects it %s)", expect.OutcomeName(u.Expected))
			}
			fmt.Fprintln(w, line)
		}
	}
	for _, s := range e.DidNotHappen {
		label := "expected but passed"
		if s.Actual != string(features.Passed) {
			label = "expected but did not happen"
		}
		fmt.Fprintf(w, "  %s: %s (line %d: expected %s, was %s): remove the entry\n", label, s.ID, s.Line, expect.OutcomeName(s.Expected), s.Actual)
	}
	if len(e.NotJudged) > 0 {
		fmt.Fprintf(w, "  not judged (their scenarios did not run): %s\n", strings.Join(e.NotJudged, ", "))
	}
	verdict := "met: every failed or blocked scenario is expected, and every entry happened"
	if !e.Met() {
		verdict = fmt.Sprintf("not met: %d unexpected, %d entries that did not happen", len(e.Unexpected), len(e.DidNotHappen))
	}
	fmt.Fprintf(w, "  expectations %s\n", verdict)
}

// expectedNow tells whether a scenario failed or was blocked as the expectations file said (the summary lists
// only the others with their messages).
func expectedNow(rep report.ConformanceReport, id string) bool {
	if rep.Expectations == nil {
		return false
	}
	return slices.ContainsFunc(rep.Expectations.Expected, func(x report.ExpectedTest) bool { return x.Name == id })
}
