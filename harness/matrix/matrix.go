// Package matrix compares conformance reports of several implementations: one row per implementation with
// each profile's core and extended result, and every difference from the spec named with why it is one (the
// standard that allows it, or the spec statement it breaks), from the expectations file kept beside each report
// (harness/expect). A difference without an entry, or an entry no difference needs, is an error: the table
// never says less, or more, than the runs showed.
package matrix

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/expect"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// NotesFile is the name of the expectations file beside a report (and in an example's folder): the
// differences an implementation is known to have, each with why (harness/expect's format, as tck run --expect
// takes it).
const NotesFile = "expectations.yaml"

// suite is the catalog of the suite's own features, which the reports name.
var suite = sync.OnceValues(func() (*catalog.Catalog, error) { return catalog.Load(features.FS) })

// Row is one implementation's report with its expectations file (nil when it has none).
type Row struct {
	Report report.ConformanceReport
	Expect *expect.File
}

// Load reads dir/conformance-report.yaml and, when present, dir/expectations.yaml, checked against the suite's
// features.
func Load(dir string) (Row, error) {
	var r Row
	rep, _, err := report.Load(dir)
	if err != nil {
		return r, err
	}
	if len(rep.Profiles) == 0 {
		return r, fmt.Errorf("%s: the conformance report has no profiles", dir)
	}
	r.Report = rep
	cat, err := suite()
	if err != nil {
		return r, err
	}
	r.Expect, err = expect.Load(filepath.Join(dir, NotesFile), cat)
	if errors.Is(err, fs.ErrNotExist) {
		r.Expect, err = nil, nil
	}
	return r, err
}

// Differences are what the report shows the implementation does not do as the spec says: every failed or
// blocked scenario, every capability it does not declare, every profile that could not run (by its reason,
// not by each of its scenarios).
func Differences(rep report.ConformanceReport) []string {
	var out []string
	for _, p := range rep.Profiles {
		if p.Reason != "" {
			out = append(out, "profile:"+string(p.Name))
			continue
		}
		results := []report.Result{p.Core}
		if p.Extended != nil {
			results = append(results, p.Extended.Result)
			out = append(out, p.Extended.UnsupportedFeatures...)
		}
		for _, r := range results {
			out = append(out, r.FailedTests...)
			for _, b := range r.BlockedTests {
				out = append(out, b.Name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Explain pairs each difference with its entry. It returns the entries that apply, in their order, and the
// differences no entry explains and the entries no difference needs (expect.Explain): both must be empty for a
// row that can be published.
func (r Row) Explain() (applied []expect.Entry, unexplained, stale []string) {
	f := r.Expect
	if f == nil {
		f = &expect.File{Path: NotesFile}
	}
	cat, err := suite()
	if err != nil {
		return nil, []string{err.Error()}, nil
	}
	unexplained, stale = expect.Explain(f, cat, expect.RunOf(r.Report, nil))
	diffs := Differences(r.Report)
	for _, e := range f.Entries {
		if slices.ContainsFunc(e.IDs, func(id string) bool { return slices.Contains(diffs, id) }) {
			applied = append(applied, e)
		}
	}
	return applied, unexplained, stale
}

// Check returns an error that lists what Explain finds unexplained or stale.
func (r Row) Check() error {
	_, unexplained, stale := r.Explain()
	var problems []string
	if len(unexplained) > 0 {
		problems = append(problems, "differences without an entry (say why in "+NotesFile+"): "+strings.Join(unexplained, ", "))
	}
	if len(stale) > 0 {
		problems = append(problems, "entries about what the run did not show (remove them): "+strings.Join(stale, ", "))
	}
	if len(problems) > 0 {
		impl := r.Report.Implementation
		return fmt.Errorf("%s %s: %s", impl.Project, impl.Version, strings.Join(problems, "; "))
	}
	return nil
}

// Markdown renders the rows as a table: the implementation and its version, each profile's result, and the
// notes that apply.
func Markdown(rows []Row) string {
	var profiles []string
	for _, r := range rows {
		for _, p := range r.Report.Profiles {
			if !slices.Contains(profiles, string(p.Name)) {
				profiles = append(profiles, string(p.Name))
			}
		}
	}
	var b strings.Builder
	b.WriteString("| implementation | " + strings.Join(profiles, " | ") + " | what differs, and why |\n")
	b.WriteString("|---|" + strings.Repeat("---|", len(profiles)) + "---|\n")
	for _, r := range rows {
		impl := r.Report.Implementation
		name := impl.Project
		if impl.URL != "" {
			name = "[" + impl.Project + "](" + impl.URL + ")"
		}
		cells := []string{name + " " + impl.Version}
		for _, want := range profiles {
			cells = append(cells, profileCell(r.Report, want))
		}
		applied, _, _ := r.Explain()
		var why []string
		for _, n := range applied {
			why = append(why, "• "+cell(n.Why))
		}
		cells = append(cells, strings.Join(why, "<br>"))
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

func profileCell(rep report.ConformanceReport, name string) string {
	for _, p := range rep.Profiles {
		if string(p.Name) != name {
			continue
		}
		if p.Extended == nil || p.Extended.Result.Result == p.Core.Result {
			return string(p.Core.Result)
		}
		return "core " + string(p.Core.Result) + ", extended " + string(p.Extended.Result.Result)
	}
	return "not under test"
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}
