// Package harness runs the features against a target and writes the reports: a conformance report of our own
// that tells passed, failed, blocked, skipped and not supported apart (judged against an expectations file when
// one is given), and from the same outcomes JUnit XML, cucumber JSON, a Markdown summary and a badge (ciwrite.go).
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/expect"
	"github.com/fortune-tck/fortune-tck/harness/htmlreport"
	"github.com/fortune-tck/fortune-tck/harness/progress"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/steps"
	"github.com/fortune-tck/fortune-tck/target"
)

// Options configure one run.
type Options struct {
	Target *target.Target
	// Tags is a godog tag expression (@a && ~@b, @a,@b) that narrows the scenarios.
	Tags string
	// Format is the terminal format (progress.Formats): progress (one line per scenario as it ends, the
	// default) or pretty (every step). Either way the run ends with the harness's summary only.
	Format string
	// ReportsDir receives junit.xml, cucumber.json, conformance-report.yaml and index.html (RunFiles).
	ReportsDir string
	// Output is the terminal; nil means os.Stdout.
	Output io.Writer
	// TestingT runs the scenarios as subtests of a Go test.
	TestingT *testing.T
	// Features replaces the embedded features, e.g. with os.DirFS("features") while editing them.
	Features fs.FS
	// Concurrency is how many scenarios run at once (godog's Concurrency); 0 means DefaultConcurrency. A
	// scenario tagged @serial runs alone.
	Concurrency int
	// Now stamps the report; nil means time.Now.
	Now func() time.Time
	// Hurry, once closed, cuts short the removal of what an interrupted run created in the target: a second
	// Ctrl-C. Nil never hurries.
	Hurry <-chan struct{}
	// Expect is the expectations file the run is judged against (tck run --expect); nil for none.
	Expect *expect.File
}

// Result is the outcome of a run.
type Result struct {
	Report report.ConformanceReport
	// Unsupported counts scenarios that need a capability or fixture the target does not declare;
	// NotUnderTest those that need a service it does not declare; Blocked those stopped before their
	// behaviour by a failed precondition or a missing surface.
	Passed, Failed, Blocked, Skipped, Unsupported, NotUnderTest int
	ReportPath                                                  string
	// PagePath is the HTML report (index.html), empty when it could not be written.
	PagePath string
	// Elapsed is the wall time the scenarios took, Concurrency how many ran at once.
	Elapsed     time.Duration
	Concurrency int
}

// DefaultConcurrency is how many scenarios a run has under way at once. They wait most of the time: on the
// target's answers, on a token's expiry, on a bus delivering, on instances starting, on a quiet second that
// shows nothing else happens. Against the reference on an idle two-CPU machine (195 scenarios, 2026-11-27)
// the whole suite took 47.8 s at four (median of ten runs) and 31.5 s at eight. With the reference no longer
// spending most of its CPU on bcrypt, on the same VM shared with other builds, eight took 53.6 s where the
// earlier code at four took 91.2 s back to back (load average 12-17), and ten runs in a row were all green,
// 42.9 to 101.5 s at load average 14-33 (docs/performance.md, "The suite's wall time"). Eight is
// gentle still: a scenario sends its requests one after the other, waiting for each answer, so a target sees
// about eight at once (a browser's few more) however fast it is; a target that limits the rate of one client
// address can be run with --concurrency 4 or less.
const DefaultConcurrency = 8

// ErrSetup marks a run that could not start because the target cannot be tested as it is set up: it does not
// answer, or preflight's walk through it failed at a step it names (a refused fixture password, a scope not granted).
var ErrSetup = errors.New("the target cannot be tested")

// Run runs the suite. It returns an error only when the run itself could not be done (bad features, an
// unreachable target, a cancelled context, a context whose time ran out: a *TimeoutError); failed scenarios
// are in the Result. What it prints and writes and the error it returns show no secret of the run and no
// control character of the target (output.go).
func Run(ctx context.Context, opts Options) (_ *Result, err error) {
	opts = withDefaults(opts)
	color := isTerminal(opts.Output)
	godogFormat, err := progress.Godog(opts.Format)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(opts.Features)
	if err != nil {
		return nil, fmt.Errorf("loading the features: %w", err)
	}
	areas := areasUnderTest(opts.Target, cat)
	if len(areas) == 0 {
		return nil, fmt.Errorf("the target declares no service whose area has scenarios")
	}
	if err := checkManifestDir(opts.Target.Services.Gateway); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	suite := steps.New(stepsEnv(opts.Target, opts))
	suite.Secrets().SetVocabulary(vocabulary(opts.Features, cat))
	clean := cleaner{suite.Secrets()}
	term := newTerminal(opts.Output, clean)
	opts.Output = term
	running := &underway{m: map[string]string{}}
	defer func() {
		err = clean.error(stopped(ctx, suite, running, err))
		if ferr := term.Flush(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	defer suite.Release()
	if err := suite.Preflight(ctx); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	res := report.NewResults()
	reasons := profileReasons(suite)
	plan := planRun(opts, cat, areas, reasons, res)
	if plan.selected == 0 && len(reasons) == 0 {
		return nil, fmt.Errorf("no scenario matches the tags %q among the areas %s", opts.Tags, features.List(areas))
	}
	if err := os.MkdirAll(opts.ReportsDir, 0o755); err != nil {
		return nil, err
	}
	var elapsed time.Duration
	capture := newCapture()
	defer capture.done()
	if plan.selected > 0 {
		progress.Start(opts.Output, plan.selected, leftOut(cat, areas, opts.Tags, res))
		began := time.Now()
		err := runGodog(ctx, opts, color, godogFormat+","+captureFormat, capture.suite, plan, suite, cat, res, clean, running)
		elapsed = time.Since(began)
		// What scenarios created in the target and did not remove (a run interrupted in one) goes now, also
		// after a Ctrl-C, within cleanupTimeout unless a second one hurries it.
		cctx, cancel := cleanupContext(ctx, opts.Hurry)
		if cerr := suite.Cleanup(cctx); cerr != nil {
			fmt.Fprintf(opts.Output, "Warning: %v\n", clean.text(cerr.Error()))
		}
		cancel()
		if err != nil {
			return nil, err
		}
	}
	markNeverRun(plan, res)
	r, err := finish(opts, cat, areas, reasons, res, suite.LeftBehind(), elapsed, capture.done())
	if err == nil {
		// The last point every report file passes through, whoever wrote it.
		err = maskReports(opts.ReportsDir, suite.Secrets())
	}
	return r, err
}

// profileReasons are the profiles that cannot run at all, each with the one reason: a surface the profile
// requires that the target lacks (a server without check_token fails that profile once, not in eight stack
// traces).
func profileReasons(suite *steps.Suite) map[features.ProfileName]string {
	reasons := map[features.ProfileName]string{}
	missing := suite.MissingSurfaces()
	for _, p := range features.Profiles {
		if why, ok := missing[p.Requires]; ok && p.Requires != "" {
			reasons[p.Name] = why
		}
	}
	return reasons
}

// profilesOf are the profiles of the areas under test, in report order.
func profilesOf(areas []features.Area) []features.ProfileName {
	var out []features.ProfileName
	for _, p := range features.Profiles {
		if slices.Contains(areas, p.Area) {
			out = append(out, p.Name)
		}
	}
	return out
}

func withDefaults(opts Options) Options {
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if opts.Format == "" {
		opts.Format = progress.Scenarios
	}
	if opts.ReportsDir == "" {
		opts.ReportsDir = "reports"
	}
	if opts.Features == nil {
		opts.Features = features.FS
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	return opts
}

// areasUnderTest are the areas whose primary service (features.Area.Primary) the target declares, in report
// order.
func areasUnderTest(t *target.Target, cat *catalog.Catalog) []features.Area {
	var out []features.Area
	for _, a := range cat.Areas(features.Areas) {
		if t.HasService(a.Primary()) {
			out = append(out, a)
		}
	}
	return out
}

// stepsEnv gives the steps the target as it is, and does for them what is not HTTP: the gateway's manifests and
// access log, the configuration application's instances, the folder for artifacts.
func stepsEnv(t *target.Target, opts Options) steps.Env {
	env := steps.Env{Target: t, Artifacts: opts.ReportsDir}
	if g := t.Services.Gateway; g != nil {
		env.Gateway = gatewayHooks(g, opts)
	}
	if ca := t.Services.ConfigApp; ca != nil {
		env.StartApp = appStarter(ca, t.Services.ConfigServer.URL, filepath.Join(opts.ReportsDir, "logs"))
	}
	return env
}

// plan is what godog is asked to run.
type plan struct {
	tags     string
	paths    []string
	ranked   []catalog.Scenario // the order in which scenarios get their places (scheduler)
	selected int
	expected map[string]catalog.Scenario // by scenario ID: what must come back with an outcome
	exclude  map[string]bool             // by scenario ID: scenarios godog skips, their outcome known already
}

// planRun marks the scenarios that cannot run (unsupported, not under test, or blocked with their profile);
// godog is told to skip them.
func planRun(opts Options, cat *catalog.Catalog, areas []features.Area, reasons map[features.ProfileName]string, res *report.Results) plan {
	p := plan{paths: featurePaths(cat, areas), tags: opts.Tags, expected: map[string]catalog.Scenario{}, exclude: map[string]bool{}}
	for _, s := range cat.Scenarios {
		if !slices.Contains(areas, s.Area) {
			continue
		}
		if lacks := missingRequirements(opts.Target, s); len(lacks) > 0 {
			res.SetUnsupported(s, lacks)
			p.exclude[s.ID()] = true
			continue
		}
		if why := reasons[s.Profile]; why != "" {
			if MatchTags(opts.Tags, s.Tags) {
				res.Set(s, report.Blocked, why)
			}
			p.exclude[s.ID()] = true
			continue
		}
		if MatchTags(opts.Tags, s.Tags) {
			p.selected++
			p.expected[s.ID()] = s
		}
	}
	for _, s := range order(cat, areas) {
		if _, ok := p.expected[s.ID()]; ok {
			p.ranked = append(p.ranked, s)
		}
	}
	return p
}

// leftOut are the scenarios of the areas under test that will not run, counted by why: "2 not supported",
// "107 left out by --tags".
func leftOut(cat *catalog.Catalog, areas []features.Area, tags string, res *report.Results) []string {
	counts := map[report.Outcome]int{}
	for _, s := range cat.Scenarios {
		if !slices.Contains(areas, s.Area) {
			continue
		}
		if o, ok := res.Outcomes[s.ID()]; ok {
			counts[o]++
		} else if !MatchTags(tags, s.Tags) {
			counts[report.Skipped]++
		}
	}
	var out []string
	for _, c := range []struct {
		o    report.Outcome
		text string
	}{
		{report.Blocked, "blocked with their profile"},
		{report.Unsupported, "not supported by the target"},
		{report.NotUnderTest, "not under test"},
		{report.Skipped, "left out by --tags"},
	} {
		if n := counts[c.o]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, c.text))
		}
	}
	return out
}

func runGodog(ctx context.Context, opts Options, color bool, godogFormat, suiteName string, p plan, suite *steps.Suite,
	cat *catalog.Catalog, res *report.Results, clean cleaner, running *underway) error {
	var lines *progress.Lines
	if opts.Format == progress.Scenarios {
		lines = progress.NewLines(opts.Output, color)
	}
	var mu sync.Mutex
	// The scheduler gives the scenarios their places, opts.Concurrency at once, and lets a serial one run with
	// none of its feature's others: what a serial scenario disturbs (the bus of the configuration app's
	// instances) is its feature's. godog starts one more scenario than that for each serial one, which may
	// wait for its place without holding one back.
	godogConcurrency := opts.Concurrency
	if godogConcurrency > 1 {
		for _, s := range p.ranked {
			if s.HasTag(features.SerialTag) {
				godogConcurrency++
			}
		}
	}
	sched := newScheduler(opts.Concurrency, p.ranked)
	started := map[string]time.Time{} // by pickle id
	record := func(ctx context.Context, sc *godog.Scenario, s catalog.Scenario, err error) {
		mu.Lock()
		defer mu.Unlock()
		var o report.Outcome
		switch blocked, cause := steps.Verdict(ctx, err); {
		case err == nil:
			o = report.Passed
			res.Set(s, o, "")
		case blocked:
			o = report.Blocked
			res.Set(s, o, clean.text(cause))
		default:
			o = report.Failed
			res.Set(s, o, clean.text(err.Error()))
		}
		running.end(sc.Id)
		if lines != nil {
			lines.Ended(o, time.Since(started[sc.Id]), s.ID())
		}
	}
	excluded := func(sc *godog.Scenario) (catalog.Scenario, bool) {
		s, ok := cat.Lookup(catalog.PickleKey(sc))
		return s, !ok || p.exclude[s.ID()]
	}
	ts := godog.TestSuite{
		Name:                 suiteName, // the capture formatter finds the run's buffer by it
		TestSuiteInitializer: suite.InitializeTestSuite,
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			leave := func() {} // gives the scenario's place back
			sc.Before(func(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
				s, skip := excluded(sc)
				if skip {
					return ctx, godog.ErrSkip
				}
				l, err := sched.enter(ctx, s)
				if err != nil {
					return ctx, err // the run was stopped while it waited
				}
				leave = l
				mu.Lock()
				started[sc.Id] = time.Now()
				mu.Unlock()
				running.start(sc.Id, s.ID())
				return ctx, nil
			})
			suite.InitializeScenario(sc)
			sc.After(func(ctx context.Context, sc *godog.Scenario, err error) (context.Context, error) {
				s, skip := excluded(sc)
				if skip {
					return ctx, nil
				}
				record(ctx, sc, s, err)
				leave()
				return ctx, nil // the scenario's own error stands; returning it again would repeat it
			})
		},
		Options: &godog.Options{
			Format: godogFormat,
			Output: opts.Output, NoColors: !color,
			FS: opts.Features, Paths: p.paths, Tags: p.tags,
			Strict: true, Concurrency: godogConcurrency, TestingT: opts.TestingT, DefaultContext: ctx,
		},
	}
	done := make(chan struct{})
	go func() { ts.Run(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// markNeverRun fails every selected scenario that godog did not report on: a scenario that silently stopped
// running is worse than one that fails.
func markNeverRun(p plan, res *report.Results) {
	for _, s := range p.expected {
		if _, ok := res.Outcomes[s.ID()]; !ok {
			res.Set(s, report.Failed, "selected but never run")
		}
	}
}

func finish(opts Options, cat *catalog.Catalog, areas []features.Area, reasons map[features.ProfileName]string, res *report.Results, left []string, elapsed time.Duration, godogJSON []byte) (*Result, error) {
	impl := opts.Target.Implementation
	rep := report.Build(report.Implementation(impl), suiteVersion, opts.Now(), cat, profilesOf(areas), reasons, res)
	rep.LeftBehind = left
	judge(opts, cat, res, &rep)
	r := &Result{Report: rep, ReportPath: filepath.Join(opts.ReportsDir, "conformance-report.yaml"),
		Elapsed: elapsed, Concurrency: opts.Concurrency}
	for _, s := range cat.Scenarios {
		if !slices.Contains(areas, s.Area) {
			r.NotUnderTest++ // as the reports count it: the target declares no service of its area
			continue
		}
		switch res.Get(s) {
		case report.Passed:
			r.Passed++
		case report.Failed:
			r.Failed++
		case report.Blocked:
			r.Blocked++
		case report.Skipped:
			r.Skipped++
		case report.Unsupported:
			r.Unsupported++
		case report.NotUnderTest:
			r.NotUnderTest++
		}
	}
	if err := report.Write(r.ReportPath, rep); err != nil {
		return nil, fmt.Errorf("writing the conformance report: %w", err)
	}
	writeCIFiles(opts, cat, areas, res, rep, r, godogJSON)
	// The page people open: from the files just written, as tck report makes it later.
	sections, _ := coverage.LoadSections(opts.Features, "sections.yaml") // features without an index: no coverage view
	page, err := htmlreport.WriteDir(opts.ReportsDir, cat, sections)
	if r.PagePath = page; err != nil {
		fmt.Fprintf(opts.Output, "Warning: no HTML report: %v\n", err)
		r.PagePath = ""
	}
	printSummary(opts.Output, rep, r, cat, res)
	return r, nil
}

// suiteVersion is the version of the features; bump it when a scenario's meaning changes.
const suiteVersion = "v0.1.0"

func printSummary(w io.Writer, rep report.ConformanceReport, r *Result, cat *catalog.Catalog, res *report.Results) {
	fmt.Fprintf(w, "\nConformance of %s:\n", strings.TrimSpace(rep.Implementation.Project+" "+rep.Implementation.Version))
	for _, p := range rep.Profiles {
		result := p.Core.Result
		if p.Extended != nil {
			result += ", extended " + p.Extended.Result.Result
		}
		fmt.Fprintf(w, "  %-12s %-30s %s\n", p.Name, result, p.Summary)
		if p.Reason != "" {
			fmt.Fprintf(w, "               %s\n", p.Reason)
		}
		if p.Extended != nil && len(p.Extended.UnsupportedFeatures) > 0 {
			fmt.Fprintf(w, "               not supported: %s\n", strings.Join(p.Extended.UnsupportedFeatures, ", "))
		}
		if len(p.UntestedServices) > 0 {
			fmt.Fprintf(w, "               not under test (the target declares no such service): %s\n", strings.Join(p.UntestedServices, ", "))
		}
	}
	list := func(title string, o report.Outcome, withMessage bool) {
		first := true
		for _, s := range cat.Scenarios {
			if res.Get(s) != o || (o == report.Blocked && res.Messages[s.ID()] != "" && profileBlocked(rep, s.Profile)) || expectedNow(rep, s.ID()) {
				continue
			}
			if first {
				fmt.Fprintln(w, title)
				first = false
			}
			fmt.Fprintf(w, "  %s (%s)\n", s.ID(), s.Location())
			if withMessage {
				fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(strings.TrimRight(res.Messages[s.ID()], "\n"), "\n", "\n      "))
			}
		}
	}
	list("Failed scenarios:", report.Failed, true)
	list("Blocked scenarios (a precondition failed before the behaviour they verify):", report.Blocked, true)
	printExpectations(w, rep.Expectations)
	fmt.Fprintf(w, "%d passed, %d failed, %d blocked, %d skipped, %d not supported, %d not under test, in %s (%d at once)\n",
		r.Passed, r.Failed, r.Blocked, r.Skipped, r.Unsupported, r.NotUnderTest, r.Elapsed.Round(100*time.Millisecond), r.Concurrency)
	if len(rep.LeftBehind) > 0 {
		fmt.Fprintln(w, "Left behind in the target (the suite could not remove them):")
		for _, l := range rep.LeftBehind {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintf(w, "Reports in %s: %s, junit.xml, cucumber.json, summary.md, badge.svg\n", filepath.Dir(r.ReportPath), filepath.Base(r.ReportPath))
	if r.PagePath != "" {
		fmt.Fprintf(w, "Open %s in a browser to see them.\n", r.PagePath)
	}
}

// profileBlocked tells whether the whole profile was blocked with one reason (printed once, with the profile).
func profileBlocked(rep report.ConformanceReport, name features.ProfileName) bool {
	for _, p := range rep.Profiles {
		if p.Name == name {
			return p.Reason != ""
		}
	}
	return false
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
