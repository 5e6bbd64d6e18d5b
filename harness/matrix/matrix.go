// Package matrix compares conformance reports of several implementations: one row per implementation with
// each profile's core and extended result, and every difference from the spec named with why it is one (the
// standard that allows it, or the spec statement it breaks), from notes kept beside each report. A difference
// without a note, or a note no difference needs, is an error: the table never says less, or more, than the
// runs showed.
package matrix

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

// NotesFile is the name of the notes beside a report (and in an example's folder).
const NotesFile = "differences.yaml"

// Notes say why an implementation differs from the spec where it does.
type Notes struct {
	Notes []Note `yaml:"notes"`
}

// Note explains a set of differences: scenario ids, capabilities the implementation does not declare, or
// "profile:<name>" for a profile that could not run at all.
type Note struct {
	About []string `yaml:"about"`
	Why   string   `yaml:"why"`
}

// Row is one implementation's report with its notes.
type Row struct {
	Report report.ConformanceReport
	Notes  Notes
}

// Load reads dir/conformance-report.yaml and, when present, dir/differences.yaml.
func Load(dir string) (Row, error) {
	var r Row
	data, err := os.ReadFile(filepath.Join(dir, "conformance-report.yaml"))
	if err != nil {
		return r, err
	}
	if err := yaml.Unmarshal(data, &r.Report); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, "conformance-report.yaml"), err)
	}
	if r.Report.Kind != "ConformanceReport" || len(r.Report.Profiles) == 0 {
		return r, fmt.Errorf("%s: not a conformance report of tck (kind %q, %d profiles)", dir, r.Report.Kind, len(r.Report.Profiles))
	}
	r.Notes, err = LoadNotes(filepath.Join(dir, NotesFile))
	if os.IsNotExist(err) {
		err = nil
	}
	return r, err
}

// LoadNotes reads a notes file; every note needs about and why.
func LoadNotes(path string) (Notes, error) {
	var n Notes
	data, err := os.ReadFile(path)
	if err != nil {
		return n, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&n); err != nil {
		return n, fmt.Errorf("%s: %w", path, err)
	}
	for i, note := range n.Notes {
		if len(note.About) == 0 || strings.TrimSpace(note.Why) == "" {
			return n, fmt.Errorf("%s: notes[%d]: about and why are required", path, i)
		}
	}
	return n, nil
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

// Explain pairs each difference with its note. It returns the notes that apply, in their order, and the
// differences no note explains and the note entries no difference needs: both must be empty for a row that
// can be published.
func (r Row) Explain() (applied []Note, unexplained, stale []string) {
	diffs := Differences(r.Report)
	explained := map[string]bool{}
	for _, n := range r.Notes.Notes {
		used := false
		for _, a := range n.About {
			if slices.Contains(diffs, a) {
				explained[a], used = true, true
			} else {
				stale = append(stale, a)
			}
		}
		if used {
			applied = append(applied, n)
		}
	}
	for _, d := range diffs {
		if !explained[d] {
			unexplained = append(unexplained, d)
		}
	}
	return applied, unexplained, stale
}

// Check returns an error that lists what Explain finds unexplained or stale.
func (r Row) Check() error {
	_, unexplained, stale := r.Explain()
	var problems []string
	if len(unexplained) > 0 {
		problems = append(problems, "differences without a note (say why in "+NotesFile+"): "+strings.Join(unexplained, ", "))
	}
	if len(stale) > 0 {
		problems = append(problems, "notes about what the run did not show (remove them): "+strings.Join(stale, ", "))
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
