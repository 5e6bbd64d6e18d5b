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

func summary(results []Result) map[string]int {
	s := map[string]int{}
	for _, r := range results {
		s[string(r.Outcome)]++
	}
	return s
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

// commitOf names the commit the working tree is on, marked -dirty when it has uncommitted edits (the
// mutants were made from those edits too).
func commitOf(root string) string {
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func writeResults(dir, root string, results []Result, total int, wall time.Duration, now time.Time) error {
	f := resultFile{Date: now.UTC().Format(time.RFC3339), Commit: commitOf(root), WallSeconds: int(wall.Seconds()),
		Complete: len(results) == total, Total: total, Summary: summary(results)}
	for _, r := range results {
		f.Mutants = append(f.Mutants, resultEntry{ID: r.Mutant.ID, Service: r.Mutant.Service, Spec: r.Mutant.Spec,
			Outcome: r.Outcome, Catching: r.Catching, Detail: r.Detail, Seconds: int(r.Seconds + 0.5)})
	}
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
	return os.WriteFile(filepath.Join(dir, "README.md"), markdown(f, results), 0o644)
}

// markdown is the table a reader of reports/ sees first.
func markdown(f resultFile, results []Result) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Mutation check\n\n`make mutants` on %s (commit %s), %d s wall time: %d of %d mutants run, %d caught, %d survived.\n",
		f.Date, f.Commit, f.WallSeconds, len(results), f.Total, f.Summary[string(Caught)], f.Summary[string(Survived)])
	if !f.Complete {
		b.WriteString("**Incomplete**: the run was stopped or is still under way.\n")
	}
	b.WriteString("Each mutant is a deliberate bug in the reference (tools/mutants/catalogue.yaml); a survivor is a hole in the suite.\n\n")
	b.WriteString("| mutant | service | spec | outcome | caught by (first) | s |\n|---|---|---|---|---|---|\n")
	for _, r := range results {
		by := r.Detail
		if len(r.Catching) > 0 {
			by = firstN(r.Catching, 1)
		}
		by = strings.ReplaceAll(by, "|", "\\|")
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %.0f |\n", r.Mutant.ID, r.Mutant.Service, r.Mutant.Spec, r.Outcome, by, r.Seconds)
	}
	return b.Bytes()
}
