// Command tck runs the fortune-tck conformance suite against an implementation and writes reports.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness"
	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/containers"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/htmlreport"
	"github.com/fortune-tck/fortune-tck/harness/matrix"
	"github.com/fortune-tck/fortune-tck/harness/progress"
	"github.com/fortune-tck/fortune-tck/internal/version"
	"github.com/fortune-tck/fortune-tck/target"
)

// Exit codes, documented in usage.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitRunError    = 3
	exitInterrupted = 130
)

const usage = `tck runs the fortune-tck conformance suite against an implementation of the interface.

Usage:
  tck run [--target FILE] [--tags EXPR] [--expect FILE] [--format progress|pretty] [--reports DIR] [--timeout D]
          [--features DIR]
  tck expect --from DIR [--out FILE] | tck expect --check FILE | tck expect --list
  tck diff [--format text|markdown|json] OLD NEW
  tck coverage [--verbose] [--features DIR]
  tck validate FILE
  tck capabilities
  tck matrix [--check] [--html FILE] DIR...
  tck --version
  tck report [--reports DIR] [--out FILE]
  tck docs [--report DIR] [--out FILE]

Commands:
  run           Run the features. Without --target, build the reference implementation from this checkout,
                start its services on free ports, run against them and stop them again.
  expect        Write a starting expectations file from a run's reports (each difference with the run's
                reason as its why, to edit), check one, or list the stable IDs an entry may name.
  diff          Compare two runs (report folders or conformance-report.yaml files) by stable ID: newly
                failing or blocked, newly passing, not supported, added or removed, capabilities gained or lost.
  coverage      For every numbered section and table row of the spec, the scenarios that cite it and assert
                it; then the citations no outcome step backs, and the sections no scenario covers yet.
  validate      Check a target file and report every mistake with its field.
  capabilities  List the optional capabilities a target file may declare.
  matrix        Compare the reports of several implementations (each DIR holds a conformance-report.yaml and
                the expectations.yaml that says why each difference is one) as a Markdown table; --html also
                writes it as a page.
  report        Render a run's reports (DIR/conformance-report.yaml, DIR/cucumber.json) as one self-contained
                HTML page, DIR/index.html: results, every scenario with its steps and evidence, spec coverage.
  docs          Render the features as a browsable spec (reports/spec.html), with a run's outcomes if given.

Exit status:
  0    no selected scenario failed or was blocked (those not supported or not under test do not count), or
       with --expect every failed or blocked one is expected and every entry of the file happened
  1    some failed or were blocked (with --expect: unexpectedly), or an expected one did not happen (tck diff:
       a regression; tck matrix --check: a difference without an entry)
  2    bad usage, target file or expectations file
  3    the run could not be done (the target is unreachable or its set-up is wrong, the reference failed to
       start, the run took longer than --timeout)
  130  interrupted (Ctrl-C: the run removes what it created and stops what it started; a second Ctrl-C stops
       it at once)
tck run first removes an earlier run's reports; one it cannot carry out leaves an index.html that says why.
Run 'tck COMMAND --help' (or 'tck help COMMAND') for the flags of a command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" { // tck help run: as tck run --help
		args = []string{args[1], "--help"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	switch args[0] {
	case "run":
		return runSuite(args[1:], stdout, stderr)
	case "coverage":
		return runCoverage(args[1:], stdout, stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "capabilities":
		return runCapabilities(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "matrix":
		return runMatrix(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "docs":
		return runDocs(args[1:], stdout, stderr)
	case "expect":
		return runExpect(args[1:], stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "tck: unknown command %q; the commands are run, expect, diff, coverage, validate, capabilities, matrix, report, docs (tck --help)\n", args[0])
	return exitUsage
}

// runCapabilities lists the capabilities a target file may declare.
func runCapabilities(args []string, stdout, stderr io.Writer) int {
	return withoutArgs("tck capabilities", "Lists the optional capabilities a target file may declare (its capabilities field), with what each\n"+
		"means; a scenario that needs one carries the tag @capability-<name>.", args, stdout, stderr, func() { printCapabilities(stdout) })
}

// runVersion prints the build's version.
func runVersion(args []string, stdout, stderr io.Writer) int {
	return withoutArgs("tck --version", "Prints the version of tck: its module version and the commit it was built from (-dirty: with\nuncommitted changes).",
		args, stdout, stderr, func() { fmt.Fprintln(stdout, version.String("tck")) })
}

// withoutArgs runs a command that takes neither flags nor arguments: --help and -h print its usage, anything
// else is bad usage.
func withoutArgs(name, summary string, args []string, stdout, stderr io.Writer, do func()) int {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = usageOf(fl, name, summary)
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	if fl.NArg() > 0 {
		fl.Usage()
		return exitUsage
	}
	do()
	return exitOK
}

// printCapabilities lists the registry's capabilities with what each means; one declared by a field of the
// target file says so in its text.
func printCapabilities(w io.Writer) {
	for _, c := range features.Capabilities {
		fmt.Fprintf(w, "%-30s %s\n", c.Name, c.Doc)
	}
}

func runSuite(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var o runOptions
	fl.StringVar(&o.target, "target", "", "target description (YAML) of the implementation under test; default: boot the reference")
	fl.StringVar(&o.tags, "tags", "", "godog tag expression selecting scenarios, e.g. '@spec-4.4 && ~@capability-config.errors'")
	fl.StringVar(&o.expect, "expect", "", "expectations file: the known differences (stable IDs with the outcome expected and why); the run\n"+
		"exits 0 when every failed or blocked scenario is expected and 1 on an unexpected one or an entry that\n"+
		"did not happen (tck expect --from DIR writes a starting file)")
	fl.StringVar(&o.format, "format", progress.Scenarios, "terminal format: progress (a line per scenario as it ends: passed, failed or blocked, its time, its ID)\n"+
		"or pretty (every step); either way the run ends with the harness's summary")
	fl.StringVar(&o.reports, "reports", "reports", "folder for conformance-report.yaml, index.html, junit.xml, cucumber.json, summary.md and\n"+
		"badge.svg; a run first removes those (and logs/*.log) of an earlier run, and one that cannot\n"+
		"be carried out writes an index.html that says why")
	fl.IntVar(&o.concurrency, "concurrency", harness.DefaultConcurrency, "how many scenarios run at once (1: one after the other); those tagged @serial run alone")
	fl.StringVar(&o.features, "features", "", "read features from this folder instead of the built-in ones")
	fl.DurationVar(&o.timeout, "timeout", defaultTimeout, "stop the run after this long (e.g. 90s, 30m) and report, as its one error, what it was\n"+
		"still waiting for; every request, git operation and browser action also has a deadline of its own")
	fl.Usage = usageOf(fl, "tck run [flags]", "Runs the features against a target and writes reports. Without --target it builds the "+
		"reference from this checkout,\nstarts its services on free ports and stops them at the end. Exit status: see tck --help.")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	// Before anything else can fail: an earlier run's verdict must not look like this one's, and a folder the
	// run cannot write fails now rather than after the target has been started.
	err := os.MkdirAll(o.reports, 0o755)
	if err == nil {
		err = harness.ClearReports(o.reports)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tck run: --reports: %v\n%s\n", err, reportsHint(o.reports))
		return exitUsage
	}
	f := &failure{stderr: stderr}
	code := runChecked(o, f, stdout)
	if code != exitOK && code != exitFailed {
		writeErrorPage(o.reports, f, code)
	}
	return code
}

// runOptions are the flags of tck run.
type runOptions struct {
	target, tags, format, reports, features, expect string
	concurrency                                     int
	timeout                                         time.Duration
}

// defaultTimeout is how long a run may take at most unless --timeout says otherwise: the reference's whole
// suite takes about a minute.
const defaultTimeout = 15 * time.Minute

// failure is why a run ended without a verdict: printed when it happens, and kept for the page that takes the
// place of the reports.
type failure struct {
	stderr io.Writer
	msg    string
}

// fail prints the run's error, keeps it, and returns the exit status.
func (f *failure) fail(code int, format string, args ...any) int {
	f.msg = fmt.Sprintf(format, args...)
	fmt.Fprintln(f.stderr, f.msg)
	return code
}

// writeErrorPage writes the index.html of a run that could not be carried out, so that whoever opens the
// folder sees why instead of nothing, or an old page.
func writeErrorPage(dir string, f *failure, code int) {
	msg := cmp.Or(f.msg, fmt.Sprintf("tck run ended with status %d", code))
	logs, _ := os.ReadDir(filepath.Join(dir, "logs"))
	page := htmlreport.ErrorPage{Message: msg, Status: code, Time: time.Now(), Logs: len(logs) > 0}
	if _, err := htmlreport.WriteErrorDir(dir, page); err != nil {
		fmt.Fprintf(f.stderr, "tck: no page that says why: %v\n", err)
	}
}

// runChecked checks the flags, starts the target and runs the suite against it.
func runChecked(o runOptions, f *failure, stdout io.Writer) int {
	if _, err := progress.Godog(o.format); err != nil {
		return f.fail(exitUsage, "tck run: --format: %v", err)
	}
	fsys, err := featuresFS(o.features)
	if err != nil {
		return f.fail(exitUsage, "tck run: %v", err)
	}
	if o.concurrency < 1 {
		return f.fail(exitUsage, "tck run: --concurrency %d: give 1 or more", o.concurrency)
	}
	if err := harness.CheckTags(o.tags, fsys); err != nil {
		return f.fail(exitUsage, "tck run: --tags: %v", err)
	}
	if o.timeout <= 0 {
		return f.fail(exitUsage, "tck run: --timeout %s: give a positive duration such as 90s or 30m", o.timeout)
	}
	expected, err := loadExpectations(o.expect, fsys)
	if err != nil {
		return f.fail(exitUsage, "tck run: --expect: %v", err)
	}
	sig := onInterrupt(f.stderr)
	defer sig.stop()
	ctx, cancel := context.WithTimeoutCause(sig.ctx, o.timeout, harness.ErrTimeout)
	defer cancel()

	tg, code := loadOrBoot(ctx, o.target, o.reports, stdout, f)
	if tg == nil {
		return code
	}
	defer tg.stop()
	res, err := harness.Run(ctx, harness.Options{Target: tg.target, Tags: o.tags, Format: o.format,
		ReportsDir: o.reports, Output: stdout, Features: fsys, Concurrency: o.concurrency, Hurry: sig.hurry,
		Expect: expected})
	switch {
	case errors.Is(context.Cause(ctx), harness.ErrTimeout) && err != nil:
		return f.fail(exitRunError, "tck: the run took longer than --timeout %s and was stopped: %v", o.timeout, err)
	case sig.ctx.Err() != nil:
		return f.fail(exitInterrupted, "tck: interrupted; stopping the services it started")
	case err != nil:
		return f.fail(exitRunError, "tck: %v", err)
	case !res.OK():
		return exitFailed
	}
	return exitOK
}

// booted is the target of a run and how to release it.
type booted struct {
	target *target.Target
	stop   func()
}

func loadOrBoot(ctx context.Context, file, reports string, stdout io.Writer, f *failure) (*booted, int) {
	if file != "" {
		t, err := target.Load(file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, f.fail(exitUsage, "tck: %v; check the file --target names", err)
		}
		if err != nil {
			return nil, f.fail(exitUsage, "tck: %v", err)
		}
		return startContainers(ctx, t, reports, f)
	}
	st, err := boot.Reference(ctx, boot.Options{Binary: os.Getenv("TCK_REFERENCE_BIN"),
		LogDir: reports + "/logs", Progress: stdout})
	if err != nil {
		if ctx.Err() != nil {
			return nil, stoppedWhile(ctx, f, "booting the reference")
		}
		return nil, f.fail(exitRunError, "tck: booting the reference: %v", err)
	}
	return &booted{target: st.Target, stop: st.Stop}, exitOK
}

// startContainers starts the services the target gives as container images; they are removed by the booted's
// stop, which runChecked defers, so also after a failure or Ctrl-C.
func startContainers(ctx context.Context, t *target.Target, reports string, f *failure) (*booted, int) {
	if len(t.Containers()) == 0 {
		return &booted{target: t, stop: func() {}}, exitOK
	}
	log := slog.New(slog.NewTextHandler(f.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	set, err := containers.Start(ctx, t, containers.Options{RunID: os.Getenv("TCK_RUN_ID"),
		LogDir: filepath.Join(reports, "logs"), Logger: log})
	if err != nil {
		if ctx.Err() != nil {
			return nil, stoppedWhile(ctx, f, "starting the target's containers")
		}
		return nil, f.fail(exitRunError, "tck: starting the target's containers: %v", err)
	}
	return &booted{target: t, stop: set.Stop}, exitOK
}

// stoppedWhile is the status of a run stopped before its scenarios: by its --timeout or by a signal.
func stoppedWhile(ctx context.Context, f *failure, what string) int {
	if errors.Is(context.Cause(ctx), harness.ErrTimeout) {
		return f.fail(exitRunError, "tck: the run took longer than --timeout while %s", what)
	}
	return f.fail(exitInterrupted, "tck: interrupted while %s", what)
}

func featuresFS(dir string) (fs.FS, error) {
	if dir == "" {
		return features.FS, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--features: %w", err)
	}
	return os.DirFS(dir), nil
}

func runCoverage(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck coverage", flag.ContinueOnError)
	fl.SetOutput(stderr)
	verbose := fl.Bool("verbose", false, "list the covering scenarios under each section")
	featuresDir := fl.String("features", "", "read features and sections.yaml from this folder instead of the built-in ones")
	fl.Usage = usageOf(fl, "tck coverage [flags]", "Lists every numbered section and table row of the spec with the scenarios that cite it (@spec-<id>)\nand assert it (an outcome step matches the section's asserts in sections.yaml), then the citations\nno outcome step backs, then the sections no scenario covers.")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	fsys, err := featuresFS(*featuresDir)
	if err == nil {
		err = printCoverage(fsys, *verbose, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tck coverage: %v\n", err)
		return exitRunError
	}
	return exitOK
}

func printCoverage(fsys fs.FS, verbose bool, w io.Writer) error {
	cat, err := catalog.Load(fsys)
	if err != nil {
		return err
	}
	sections, err := coverage.LoadSections(fsys, "sections.yaml")
	if err != nil {
		return err
	}
	cov, err := coverage.Compute(sections, cat)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "   %-34s %-8s %2s  %s\n", "section", "area", "n", "summary (-- marks sections no scenario covers)")
	cov.Print(w, verbose)
	return nil
}

// usageOf prints a command's synopsis, what it does, and its flags if it has any, each written as it is typed (--name VALUE).
func usageOf(fl *flag.FlagSet, synopsis, about string) func() {
	return func() {
		fmt.Fprintf(fl.Output(), "Usage: %s\n\n%s\n", synopsis, about)
		hasFlags := false
		fl.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(fl.Output(), "\nFlags:\n")
			printFlags(fl)
		}
	}
}

// printFlags lists the flags in one style: --name VALUE, then what it does and its default.
func printFlags(fl *flag.FlagSet) {
	fl.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if value != "" {
			name += " " + strings.ToUpper(value)
		}
		fmt.Fprintf(fl.Output(), "  %s\n", name)
		for _, line := range strings.Split(usage, "\n") {
			fmt.Fprintf(fl.Output(), "        %s\n", line)
		}
		if f.DefValue != "" && f.DefValue != "false" {
			fmt.Fprintf(fl.Output(), "        (default %s)\n", f.DefValue)
		}
	})
}

// parse parses a command's flags. Asked for help (-h, --help), it prints the usage to stdout and is done with
// status 0; a wrong flag is a usage error (status 2), its message on the flag set's output (stderr).
func parse(fl *flag.FlagSet, args []string, stdout io.Writer) (int, bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fl.SetOutput(stdout)
			fl.Usage()
			return exitOK, true
		}
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, true
	}
	return 0, false
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = usageOf(fl, "tck validate FILE", "Checks a target description and reports every mistake with its field (docs/target-file.md describes every field).")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return exitUsage
	}
	file := fl.Arg(0)
	t, err := target.Load(file)
	if err != nil {
		fmt.Fprintf(stderr, "tck: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: valid target for %s", file, t.Implementation.Project)
	if len(t.Capabilities) > 0 {
		fmt.Fprintf(stdout, " with capabilities %v", t.Capabilities)
	}
	fmt.Fprintln(stdout)
	return exitOK
}

// runMatrix prints the interop table of the reports in the folders given; with --check, a difference without a
// note or a note about nothing the run showed is an error.
func runMatrix(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck matrix", flag.ContinueOnError)
	fl.SetOutput(stderr)
	check := fl.Bool("check", false, "fail when a difference has no entry in expectations.yaml (a capability not declared included), or an\nentry explains nothing the report shows")
	htmlOut := fl.String("html", "", "also write the table as a self-contained HTML page to this file")
	fl.Usage = usageOf(fl, "tck matrix [--check] [--html FILE] DIR...", "Prints a Markdown table of the conformance reports in the folders: one row per implementation, each\nprofile's core and extended result, and why it differs where it does (DIR/expectations.yaml, as tck run --expect takes it).")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return exitUsage
	}
	var rows []matrix.Row
	status := exitOK
	for _, dir := range fl.Args() {
		r, err := matrix.Load(dir)
		if err != nil {
			fmt.Fprintf(stderr, "tck matrix: %v\n", err)
			return exitUsage
		}
		if err := r.Check(); err != nil && *check {
			fmt.Fprintf(stderr, "tck matrix: %s: %v\n", dir, err)
			status = exitFailed
		}
		rows = append(rows, r)
	}
	fmt.Fprint(stdout, matrix.Markdown(rows))
	if *htmlOut != "" && writeMatrixHTML(*htmlOut, rows, stderr) != exitOK {
		return exitRunError
	}
	return status
}
