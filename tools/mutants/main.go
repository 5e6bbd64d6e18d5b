// Command mutants is the suite's mutation check: it breaks the reference on purpose, one plausible mistake at
// a time (catalogue.yaml), runs the whole suite against each broken reference, and reports which mistakes the
// suite caught and with which scenarios. A mistake the suite lets through is a hole in the suite, not in the
// reference: the remedy is a scenario, never a weaker mutant.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const usage = `mutants runs the conformance suite against deliberately broken copies of the reference.

Usage:
  go run ./tools/mutants [--only ID,ID] [--targets NAME,NAME] [-j N] [--out DIR] [--timeout D]
  go run ./tools/mutants --list
  go run ./tools/mutants --merge DIR[,DIR] [--out DIR]

For every mutant of tools/mutants/catalogue.yaml (or those given with --only) it copies the working tree
(the files git ls-files -co --exclude-standard lists: uncommitted edits count) into a scratch directory,
applies the mutant's patch and builds ./cmd/reference there. Then it runs 'tck run' (tck is built once, from
the working tree) against every target make test runs the mutant's service in, each started as its test
starts it:
  reference        the reference stack tck boots (harness/run_test.go): every service
  envoy-ratelimit  examples/envoy-ratelimit (cmd/tck/envoyratelimit_test.go), on free ports: the gateway
                   asking envoyproxy/ratelimit instead of counting
  oidc-provider    the fortune service and greeting client with oidc-provider (cmd/tck/interop_test.go);
                   its check-token profile fails by design and catches nothing
A mutant is caught when a scenario fails or is blocked against one of them. About 30 s a target on an idle
machine: a gateway, fortune or greeting mutant runs against two.

Outcomes: caught; survived (every scenario passed everywhere: the suite has a hole); broke start-up (the
mutant is a catalogue defect, it must leave the services able to start); catalogue error (the patch does
not apply or the reference does not build); timeout; error.

Writes OUT/result.yaml and OUT/README.md (default reports/mutants) after every mutant, with each target's
outcome and the scenarios that caught it; with --only the results of the mutants run replace theirs in the
existing files and the others are kept. --merge folds the result.yaml of runs made elsewhere at the same
time (each with --only and an --out of its own) into OUT and runs nothing. Exit status: 0 every mutant caught; 1 some survived or the catalogue
has errors; 2 bad usage, or a target the mutants need is not installed (make deps); 130 interrupted (scratch
directories are removed).

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line.
type options struct {
	list    bool
	merge   string
	only    string
	targets string
	jobs    int
	out     string
	timeout time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.list, "list", false, "print the catalogue (id, service, the targets it runs against, spec, mistake) and exit")
	fs.StringVar(&o.merge, "merge", "", "comma-separated folders of other runs' result.yaml to merge into --out's, instead of running")
	fs.StringVar(&o.only, "only", "", "comma-separated mutant ids to run instead of all")
	fs.StringVar(&o.targets, "targets", "", "comma-separated targets to run the mutants against instead of all: "+strings.Join(targetNames(targets), ", "))
	fs.IntVar(&o.jobs, "j", 1, "mutants run at once; each boots a whole reference stack, so keep it at the number of free cores")
	fs.StringVar(&o.out, "out", "reports/mutants", "folder for result.yaml and README.md, relative to the checkout")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "longest a suite run against one target of one mutant may take, its start included")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q; see --help", fs.Arg(0))
	}
	if o.jobs < 1 {
		return o, errors.New("-j must be 1 or more")
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	all, err := parseCatalogue(catalogueYAML)
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 1
	}
	if o.list {
		printList(stdout, all)
		return 0
	}
	if o.merge != "" {
		return mergeRuns(all, o.out, strings.Split(o.merge, ","), stdout, stderr)
	}
	chosen, err := selectMutants(all, o.only)
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	ts, err := selectTargets(o.targets)
	if err == nil {
		err = checkTargets(chosen, ts)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runAll(ctx, o, all, chosen, ts, stdout, stderr)
}

func printList(w io.Writer, all []Mutant) {
	for _, m := range all {
		fmt.Fprintf(w, "%-44s %-12s %-26s %-10s %s\n", m.ID, m.Service, strings.Join(targetNames(targetsOf(m, targets)), ","), m.Spec, m.Mistake)
	}
	fmt.Fprintf(w, "%d mutants\n", len(all))
}

func runAll(ctx context.Context, o options, all, chosen []Mutant, ts []suiteTarget, stdout, stderr io.Writer) int {
	root, err := checkout()
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	r, err := newRunner(ctx, root, o.timeout, ts, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 1
	}
	defer r.close()
	out := o.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	start := time.Now()
	var earlier []resultEntry
	if o.only != "" {
		earlier = readResultFile(out).Mutants // --only updates the latest full result instead of replacing it
	}
	var werr error
	save := func(so []Result) {
		entries := mergeEntries(all, earlier, entriesOf(so))
		werr = writeResults(out, root, entries, len(all), time.Since(start), time.Now())
	}
	results := finished(r.runMutants(ctx, chosen, o.jobs, save))
	wall := time.Since(start)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "mutants: interrupted; the running suite was stopped and scratch directories removed; the %d results so far are in %s\n", len(results), out)
		return 130
	}
	printSummary(stdout, results, wall)
	if werr != nil {
		fmt.Fprintln(stderr, "mutants: writing the results:", werr)
		return 1
	}
	fmt.Fprintf(stdout, "Results: %s, %s\n", filepath.Join(out, "result.yaml"), filepath.Join(out, "README.md"))
	for _, res := range results {
		if res.Outcome != Caught {
			return 1
		}
	}
	return 0
}
