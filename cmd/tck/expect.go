package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/ciformat"
	"github.com/fortune-tck/fortune-tck/harness/expect"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// loadExpectations reads and checks tck run's expectations file against the features of the run; "" is none.
func loadExpectations(path string, fsys fs.FS) (*expect.File, error) {
	if path == "" {
		return nil, nil
	}
	cat, err := catalog.Load(fsys)
	if err != nil {
		return nil, err
	}
	f, err := expect.Load(path, cat)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%v (tck expect --from REPORTS writes a starting file from a run)", err)
	}
	return f, err
}

const expectAbout = `Expectations files name the known differences of an implementation: stable IDs (a scenario's, a
capability's, a fixture's as "fixture fixtures.users.outsider", or a profile's as "profile:check-token") with
the outcome expected (failed, blocked, not-supported) and why:

  expected:
    - id: profile:check-token
      outcome: blocked
      why: No check_token endpoint (spec 4.1 is UAA's); tokens are checked by introspection.

tck run --expect FILE exits 0 when every failed or blocked scenario is expected (by its own ID, one of its
capabilities' or its profile's) and 1 on one that is not, or on an entry that did not happen.

  --from DIR    write a starting file from a run's reports (each entry with the run's reason as its why)
  --check FILE  check a file: every mistake with its line (exit 2), as tck run --expect does before it runs
  --list        print every stable ID an entry may name`

// runExpect writes, checks or lists expectations.
func runExpect(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck expect", flag.ContinueOnError)
	fl.SetOutput(stderr)
	from := fl.String("from", "", "a run's reports folder `DIR` (or its conformance-report.yaml) to write a starting file from")
	out := fl.String("out", "", "write the file to `FILE` instead of to the terminal; an existing file is not overwritten")
	check := fl.String("check", "", "an expectations `FILE` to check")
	list := fl.Bool("list", false, "print every stable ID an entry may name")
	featuresDir := fl.String("features", "", "read features from this folder `DIR` instead of the built-in ones")
	fl.Usage = usageOf(fl, "tck expect --from DIR [--out FILE] | --check FILE | --list", expectAbout)
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	modes := 0
	for _, set := range []bool{*from != "", *check != "", *list} {
		if set {
			modes++
		}
	}
	if modes != 1 || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "tck expect: give one of --from DIR, --check FILE or --list")
		fl.Usage()
		return exitUsage
	}
	fsys, err := featuresFS(*featuresDir)
	if err != nil {
		fmt.Fprintf(stderr, "tck expect: %v\n", err)
		return exitUsage
	}
	cat, err := catalog.Load(fsys)
	if err != nil {
		fmt.Fprintf(stderr, "tck expect: %v\n", err)
		return exitRunError
	}
	switch {
	case *list:
		for _, id := range expect.IDs(cat) {
			fmt.Fprintln(stdout, id)
		}
		return exitOK
	case *check != "":
		f, err := loadExpectations(*check, fsys)
		if err != nil {
			fmt.Fprintf(stderr, "tck expect: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s: %d entries, every one valid\n", *check, len(f.Entries))
		return exitOK
	}
	return writeStartingFile(*from, *out, cat, stdout, stderr)
}

// writeStartingFile writes the expectations of a run's reports to out (the terminal when empty).
func writeStartingFile(from, out string, cat *catalog.Catalog, stdout, stderr io.Writer) int {
	rep, file, err := report.Load(from)
	if err != nil {
		fmt.Fprintf(stderr, "tck expect: --from: %v\n", err)
		return exitUsage
	}
	reasons, err := ciformat.ReadReasons(filepath.Join(filepath.Dir(file), "cucumber.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "tck expect: %v\n", err)
		return exitUsage
	}
	run := expect.RunOf(rep, reasons)
	for id, why := range blockedCauses(rep) {
		if run.Reasons[id] == "" {
			if run.Reasons == nil {
				run.Reasons = map[string]string{}
			}
			run.Reasons[id] = why
		}
	}
	f := expect.From(run, cat)
	w := stdout
	if out != "" {
		file, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "tck expect: --out: %v (an existing file is never overwritten: give another name)\n", err)
			return exitUsage
		}
		defer file.Close()
		w = file
	}
	if err := expect.Write(w, f); err != nil {
		fmt.Fprintf(stderr, "tck expect: %v\n", err)
		return exitRunError
	}
	if out != "" {
		fmt.Fprintf(stdout, "%s: %d entries from %s; edit each why, then run tck run --expect %s\n", out, len(f.Entries), file, out)
	}
	return exitOK
}

// blockedCauses are the causes the report gives its blocked scenarios, by stable ID.
func blockedCauses(rep report.ConformanceReport) map[string]string {
	out := map[string]string{}
	for _, p := range rep.Profiles {
		results := []report.Result{p.Core}
		if p.Extended != nil {
			results = append(results, p.Extended.Result)
		}
		for _, r := range results {
			for _, b := range r.BlockedTests {
				out[b.Name] = b.Cause
			}
		}
	}
	return out
}
