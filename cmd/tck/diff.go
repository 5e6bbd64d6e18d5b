package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/harness/rundiff"
)

// runDiff compares two runs: exit 0 without a regression, 1 with one, 2 on bad usage.
func runDiff(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck diff", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output `FORMAT`: text, markdown (for a pull-request comment) or json")
	fl.Usage = usageOf(fl, "tck diff [--format text|markdown|json] OLD NEW",
		"Compares two runs, each a reports folder or its conformance-report.yaml, by stable ID: scenarios newly\n"+
			"failing or blocked, newly passing, newly not supported, only in one run (added to or removed from the\n"+
			"suite, or not under test there), capabilities gained or lost, profiles whose result changed, and a\n"+
			"different suite version. A regression is what the old run verified and the new one does not: a\n"+
			"scenario newly failing or blocked, one that passed and is now not supported, a capability or a profile\n"+
			"lost. Exit status: 0 no regression, 1 a regression, 2 bad usage (a folder without reports,\n"+
			"reports of another suite, runs that share no profile).")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	if fl.NArg() != 2 {
		fmt.Fprintf(stderr, "tck diff: give two runs, OLD and NEW (got %d)\n", fl.NArg())
		fl.Usage()
		return exitUsage
	}
	if !slices.Contains(rundiff.Formats, *format) {
		fmt.Fprintf(stderr, "tck diff: --format %q: use %s\n", *format, strings.Join(rundiff.Formats, ", "))
		return exitUsage
	}
	var reps [2]report.ConformanceReport
	var paths [2]string
	for i, arg := range fl.Args() {
		rep, file, err := report.Load(arg)
		if err != nil {
			fmt.Fprintf(stderr, "tck diff: %s: %v\n", []string{"OLD", "NEW"}[i], err)
			return exitUsage
		}
		reps[i], paths[i] = rep, file
	}
	d, err := rundiff.Compare(paths[0], reps[0], paths[1], reps[1])
	if err != nil {
		fmt.Fprintf(stderr, "tck diff: %v\n", err)
		return exitUsage
	}
	out, err := rundiff.Render(d, *format)
	if err != nil {
		fmt.Fprintf(stderr, "tck diff: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(stdout, out)
	if d.Regressions > 0 {
		return exitFailed
	}
	return exitOK
}
