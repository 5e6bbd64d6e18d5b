package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// mergeRuns folds the results of runs made elsewhere (on other machines, or in other checkouts at once, each
// with --only and its own --out) into out's result.yaml and README.md, and runs nothing. Later folders win over
// earlier ones and over out's own results; ids no longer in the catalogue are dropped.
func mergeRuns(all []Mutant, out string, dirs []string, stdout, stderr io.Writer) int {
	root, err := checkout()
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	own := readResultFile(out)
	entries, wall := own.Mutants, own.wall()
	for _, d := range dirs {
		fresh := readResultFile(d)
		if len(fresh.Mutants) == 0 {
			fmt.Fprintf(stderr, "mutants: --merge %s: no result.yaml with results there\n", d)
			return 2
		}
		entries, wall = mergeEntries(all, entries, fresh.Mutants), wall+fresh.wall()
	}
	// The wall time written is the sum of the runs', the time the mutants took wherever they ran.
	if err := writeResults(out, root, entries, len(all), wall, time.Now()); err != nil {
		fmt.Fprintln(stderr, "mutants: writing the results:", err)
		return 1
	}
	s := summaryOf(entries)
	fmt.Fprintf(stdout, "%d of %d mutants have a result: %d caught, %d survived; written to %s, %s\n",
		len(entries), len(all), s[string(Caught)], s[string(Survived)],
		filepath.Join(out, "result.yaml"), filepath.Join(out, "README.md"))
	return 0
}
