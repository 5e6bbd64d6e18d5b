package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

// failedScenarios reads a conformance report and returns the scenarios that failed or were blocked, core
// and extended, in report order, but for those of the profiles expected fails by design (nil: none).
func failedScenarios(path string, expected func(profile string) bool) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep report.ConformanceReport
	if err := yaml.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var names []string
	add := func(r report.Result) {
		names = append(names, r.FailedTests...)
		for _, b := range r.BlockedTests {
			names = append(names, b.Name)
		}
	}
	for _, p := range rep.Profiles {
		if expected != nil && expected(string(p.Name)) {
			continue
		}
		add(p.Core)
		if p.Extended != nil {
			add(p.Extended.Result)
		}
	}
	return names, nil
}

// resultFile is reports/mutants/result.yaml.
type resultFile struct {
	Date        string `yaml:"date"`
	Commit      string `yaml:"commit"`
	WallSeconds int    `yaml:"wallSeconds"`
	// Complete is false while a run is under way or after it was stopped: Mutants then holds fewer than Total.
	Complete bool           `yaml:"complete"`
	Total    int            `yaml:"total"`
	Summary  map[string]int `yaml:"summary"`
	Mutants  []resultEntry  `yaml:"mutants"`
}

type resultEntry struct {
	ID       string   `yaml:"id"`
	Service  string   `yaml:"service"`
	Spec     string   `yaml:"spec"`
	Outcome  Outcome  `yaml:"outcome"`
	Catching []string `yaml:"catching,omitempty"` // in results written before targets were recorded
	Detail   string   `yaml:"detail,omitempty"`
	Seconds  int      `yaml:"seconds"`
	// Targets are the suite runs against each target that runs the service: which caught the mutant, and how.
	Targets []targetEntry `yaml:"targets,omitempty"`
}

type targetEntry struct {
	Name     string   `yaml:"name"`
	Outcome  Outcome  `yaml:"outcome"`
	Catching []string `yaml:"catching,omitempty"`
	Detail   string   `yaml:"detail,omitempty"`
	Seconds  int      `yaml:"seconds"`
}

func printSummary(w io.Writer, results []Result, wall time.Duration) {
	s := summary(results)
	fmt.Fprintf(w, "\n%d mutants in %s: %d caught, %d survived", len(results), wall.Round(time.Second), s[string(Caught)], s[string(Survived)])
	for _, o := range []Outcome{BrokeStartup, CatalogueError, TimedOut, RunError} {
		if s[string(o)] > 0 {
			fmt.Fprintf(w, ", %d %s", s[string(o)], o)
		}
	}
	fmt.Fprintln(w)
	for _, r := range results {
		if r.Outcome != Caught {
			fmt.Fprintf(w, "  %-15s %-44s %s\n", r.Outcome, r.Mutant.ID, r.Mutant.Mistake)
		}
	}
}

func summary(results []Result) map[string]int { return summaryOf(entriesOf(results)) }

func summaryOf(entries []resultEntry) map[string]int {
	s := map[string]int{}
	for _, e := range entries {
		s[string(e.Outcome)]++
	}
	return s
}

func entriesOf(results []Result) []resultEntry {
	var out []resultEntry
	for _, r := range results {
		e := resultEntry{ID: r.Mutant.ID, Service: r.Mutant.Service, Spec: r.Mutant.Spec,
			Outcome: r.Outcome, Detail: r.Detail, Seconds: int(r.Seconds + 0.5)}
		for _, run := range r.Runs {
			e.Targets = append(e.Targets, targetEntry{Name: run.Target, Outcome: run.Outcome, Catching: run.Catching,
				Detail: run.Detail, Seconds: int(run.Seconds + 0.5)})
		}
		out = append(out, e)
	}
	return out
}

// readResultFile reads the result.yaml of an earlier run in dir: the zero resultFile (no entries, no wall
// time) when there is none or it does not parse.
func readResultFile(dir string) resultFile {
	var f resultFile
	data, err := os.ReadFile(filepath.Join(dir, "result.yaml"))
	if err != nil || yaml.Unmarshal(data, &f) != nil {
		return resultFile{}
	}
	return f
}

// wall is the wall time the run took, to the second.
func (f resultFile) wall() time.Duration { return time.Duration(f.WallSeconds) * time.Second }

// mergeEntries puts fresh results over earlier ones, in catalogue order: a run with --only updates the
// mutants it ran and keeps the latest result of the others. Ids no longer in the catalogue are dropped.
func mergeEntries(catalogue []Mutant, earlier, fresh []resultEntry) []resultEntry {
	byID := map[string]resultEntry{}
	for _, e := range earlier {
		byID[e.ID] = e
	}
	for _, e := range fresh {
		byID[e.ID] = e
	}
	var out []resultEntry
	for _, m := range catalogue {
		if e, ok := byID[m.ID]; ok {
			out = append(out, e)
		}
	}
	return out
}

// commitOf names the commit the working tree is on, marked -dirty when it has uncommitted edits (the
// mutants were made from those edits too).
func commitOf(root string) string {
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func writeResults(dir, root string, entries []resultEntry, total int, wall time.Duration, now time.Time) error {
	f := resultFile{Date: now.UTC().Format(time.RFC3339), Commit: commitOf(root), WallSeconds: int(wall.Seconds()),
		Complete: len(entries) == total, Total: total, Summary: summaryOf(entries), Mutants: entries}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "result.yaml"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), markdown(f), 0o644)
}

// markdown is the table a reader of reports/ sees first.
func markdown(f resultFile) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Mutation check\n\n`make mutants` on %s (commit %s), %d s wall time: %d of %d mutants run, %d caught, %d survived.\n",
		f.Date, f.Commit, f.WallSeconds, len(f.Mutants), f.Total, f.Summary[string(Caught)], f.Summary[string(Survived)])
	if !f.Complete {
		b.WriteString("**Incomplete**: the run was stopped or is still under way.\n")
	}
	b.WriteString("Each mutant is a deliberate bug in the reference (tools/mutants/catalogue.yaml); a survivor is a hole in the suite.\n")
	b.WriteString("Each runs against every target `make test` runs its service's code in, and counts as caught when one of them catches it:\n")
	for _, t := range targets {
		fmt.Fprintf(&b, "- %s (%s; %s)%s\n", t.name, t.test, strings.Join(t.services, ", "), tally(f.Mutants, t.name))
	}
	b.WriteString("\n| mutant | service | spec | outcome | caught by (target: first scenario) | s |\n|---|---|---|---|---|---|\n")
	for _, e := range f.Mutants {
		by := e.Detail
		switch {
		case len(e.Targets) > 0:
			by = caughtByEntries(e.Targets)
		case len(e.Catching) > 0: // a result written before targets were recorded
			by = firstN(e.Catching, 1)
		}
		by = strings.ReplaceAll(by, "|", "\\|")
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %d |\n", e.ID, e.Service, e.Spec, e.Outcome, by, e.Seconds)
	}
	return b.Bytes()
}

// tally says how many of the mutants run against the target it caught, and how many it alone caught.
func tally(entries []resultEntry, target string) string {
	ran, caught, alone := 0, 0, 0
	for _, e := range entries {
		for _, t := range e.Targets {
			if t.Name != target {
				continue
			}
			ran++
			if t.Outcome == Caught {
				caught++
				if !slices.ContainsFunc(e.Targets, func(o targetEntry) bool { return o.Name != target && o.Outcome == Caught }) {
					alone++
				}
			}
		}
	}
	if ran == 0 {
		return ": none run"
	}
	return fmt.Sprintf(": caught %d of the %d mutants run against it, %d of them alone", caught, ran, alone)
}

// caughtBy names, per target, the first scenario that caught the mutant, or what became of the run.
func caughtBy(runs []TargetRun, n int) string {
	var parts []string
	for _, r := range runs {
		parts = append(parts, targetPart(r.Target, r.Outcome, r.Catching, r.Detail, n))
	}
	return strings.Join(parts, "; ")
}

func caughtByEntries(ts []targetEntry) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, targetPart(t.Name, t.Outcome, t.Catching, t.Detail, 1))
	}
	return strings.Join(parts, "<br>")
}

func targetPart(name string, o Outcome, catching []string, detail string, n int) string {
	switch {
	case o == Caught:
		return name + ": " + firstN(catching, n)
	case detail != "":
		return fmt.Sprintf("%s: %s (%s)", name, o, firstLine(detail))
	}
	return name + ": " + string(o)
}
