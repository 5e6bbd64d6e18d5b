package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

// failedScenarios reads a conformance report and returns the scenarios that failed or were blocked, core
// and extended, in report order.
func failedScenarios(path string) ([]string, error) {
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
		out = append(out, resultEntry{ID: r.Mutant.ID, Service: r.Mutant.Service, Spec: r.Mutant.Spec,
			Outcome: r.Outcome, Catching: r.Catching, Detail: r.Detail, Seconds: int(r.Seconds + 0.5)})
	}
	return out
}

// readEntries returns the entries of an earlier result.yaml, none when there is none.
func readEntries(dir string) []resultEntry {
	var f resultFile
	data, err := os.ReadFile(filepath.Join(dir, "result.yaml"))
	if err != nil || yaml.Unmarshal(data, &f) != nil {
		return nil
	}
	return f.Mutants
}

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
	b.WriteString("Each mutant is a deliberate bug in the reference (tools/mutants/catalogue.yaml); a survivor is a hole in the suite.\n\n")
	b.WriteString("| mutant | service | spec | outcome | caught by (first) | s |\n|---|---|---|---|---|---|\n")
	for _, e := range f.Mutants {
		by := e.Detail
		if len(e.Catching) > 0 {
			by = firstN(e.Catching, 1)
		}
		by = strings.ReplaceAll(by, "|", "\\|")
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %d |\n", e.ID, e.Service, e.Spec, e.Outcome, by, e.Seconds)
	}
	return b.Bytes()
}
