// Package harness runs the features against a target and writes the reports: JUnit XML and cucumber JSON from
// godog, and a conformance report of our own that tells passed, failed, skipped and not supported apart.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/harness/target"
	"github.com/fortune-tck/fortune-tck/steps"
)

// Options configure one run.
type Options struct {
	Target *target.Target
	// Tags is a godog tag expression (@a && ~@b, @a,@b) that narrows the scenarios.
	Tags string
	// Format is the terminal format: pretty (each step, default) or progress (one character a step).
	Format string
	// ReportsDir receives junit.xml, cucumber.json and conformance-report.yaml.
	ReportsDir string
	// Output is the terminal; nil means os.Stdout.
	Output io.Writer
	// TestingT runs the scenarios as subtests of a Go test.
	TestingT *testing.T
	// Features replaces the embedded features, e.g. with os.DirFS("features") while editing them.
	Features fs.FS
	// Now stamps the report; nil means time.Now.
	Now func() time.Time
}

// Result is the outcome of a run.
type Result struct {
	Report report.ConformanceReport
	// Failed counts failed scenarios; Unsupported counts scenarios the target's capabilities leave out.
	Failed, Passed, Skipped, Unsupported int
	ReportPath                           string
}

// ErrUnreachable marks a run that could not start because the target did not answer.
var ErrUnreachable = errors.New("target unreachable")

// Run runs the suite. It returns an error only when the run itself could not be done (bad features, an
// unreachable target, a cancelled context); failed scenarios are in the Result.
func Run(ctx context.Context, opts Options) (*Result, error) {
	opts = withDefaults(opts)
	cat, err := catalog.Load(opts.Features)
	if err != nil {
		return nil, fmt.Errorf("loading the features: %w", err)
	}
	areas := areasUnderTest(opts.Target, cat)
	if len(areas) == 0 {
		return nil, fmt.Errorf("the target declares no service whose area has scenarios")
	}
	suite := steps.New(stepsEnv(opts.Target, opts))
	if err := suite.Preflight(ctx); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	res := report.NewResults()
	plan := planRun(opts, cat, areas, res)
	if plan.selected == 0 {
		return nil, fmt.Errorf("no scenario matches the tags %q among the areas %s", opts.Tags, strings.Join(areas, ", "))
	}
	if err := os.MkdirAll(opts.ReportsDir, 0o755); err != nil {
		return nil, err
	}
	if err := runGodog(ctx, opts, plan, suite, cat, res); err != nil {
		return nil, err
	}
	markNeverRun(plan, res)
	return finish(opts, cat, areas, res)
}

func withDefaults(opts Options) Options {
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if opts.Format == "" {
		opts.Format = "pretty"
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
	return opts
}

// primaryService is the service without which an area is not under test at all. Scenarios that need a further
// service of the area say so with @service-<name>.
var primaryService = map[string]string{"auth": "authServer", "fortune": "fortune", "greeting": "greeting",
	"gateway": "gateway", "config": "configServer"}

// areasUnderTest are the areas whose primary service the target declares, in report order.
func areasUnderTest(t *target.Target, cat *catalog.Catalog) []string {
	var out []string
	for _, a := range cat.Areas(features.Areas) {
		if t.HasService(primaryService[a]) {
			out = append(out, a)
		}
	}
	return out
}

func stepsEnv(t *target.Target, opts Options) steps.Env {
	logDir := filepath.Join(opts.ReportsDir, "logs")
	env := steps.Env{Artifacts: opts.ReportsDir}
	if g := t.Services.Gateway; g != nil {
		env.Gateway = gatewayEnv(g, opts)
	}
	if f := t.Services.Fortune; f != nil {
		env.Fortune = &steps.Service{URL: f.URL}
	}
	if g := t.Services.Greeting; g != nil {
		env.Greeting = &steps.Service{URL: g.URL}
	}
	if as := t.Services.AuthServer; as != nil {
		env.AuthServer = &steps.AuthServer{URL: as.URL, AdminClient: as.Admin.ClientID, AdminSecret: as.Admin.ClientSecret}
	}
	if cs := t.Services.ConfigServer; cs != nil {
		env.ConfigServer = &steps.ConfigServer{URL: cs.URL, Repo: steps.Repo{
			URI: cs.Repository.URI, Username: cs.Repository.Username, Password: cs.Repository.Password}}
	}
	if ca := t.Services.ConfigApp; ca != nil {
		env.ConfigApp = &steps.ConfigApp{Start: appStarter(ca, t.Services.ConfigServer.URL, logDir), HarnessHost: ca.HarnessHost}
	}
	return env
}

// plan is what godog is asked to run.
type plan struct {
	tags     string
	paths    []string
	selected int
	expected map[string]catalog.Scenario // by scenario ID: what must come back with an outcome
}

// planRun marks unsupported scenarios and builds the tag expression that leaves them out.
func planRun(opts Options, cat *catalog.Catalog, areas []string, res *report.Results) plan {
	p := plan{paths: areas, expected: map[string]catalog.Scenario{}}
	missing := map[string]bool{}
	inArea := map[string]bool{}
	for _, a := range areas {
		inArea[a] = true
	}
	for _, s := range cat.Scenarios {
		if !inArea[s.Area] {
			continue
		}
		if lacks := missingRequirements(opts.Target, s); len(lacks) > 0 {
			res.SetUnsupported(s, lacks)
			for _, m := range lacks {
				missing[m.Kind+"-"+m.Name] = true
			}
			continue
		}
		if MatchTags(opts.Tags, s.Tags) {
			p.selected++
			p.expected[s.ID()] = s
		}
	}
	terms := []string{}
	if strings.TrimSpace(opts.Tags) != "" {
		terms = append(terms, opts.Tags)
	}
	for _, m := range sortedKeys(missing) {
		terms = append(terms, "~@"+m)
	}
	p.tags = strings.Join(terms, " && ")
	return p
}

// ServiceTag is the tag prefix of scenarios that need a service besides their area's primary one.
const ServiceTag = "@service-"

func missingRequirements(t *target.Target, s catalog.Scenario) []report.Requirement {
	var out []report.Requirement
	for _, name := range s.TagsWithPrefix(ServiceTag) {
		if !t.HasService(name) {
			out = append(out, report.Requirement{Kind: "service", Name: name})
		}
	}
	for _, c := range s.TagsWithPrefix(report.CapabilityTag) {
		if !t.Has(c) {
			out = append(out, report.Requirement{Kind: "capability", Name: c})
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func runGodog(ctx context.Context, opts Options, p plan, suite *steps.Suite, cat *catalog.Catalog, res *report.Results) error {
	var mu sync.Mutex
	record := func(sc *godog.Scenario, err error) {
		s, ok := cat.Lookup(catalog.PickleKey(sc))
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			res.Set(s, report.Failed, err.Error())
		} else {
			res.Set(s, report.Passed, "")
		}
	}
	ts := godog.TestSuite{
		Name:                 "fortune-tck",
		TestSuiteInitializer: suite.InitializeTestSuite,
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			suite.InitializeScenario(sc)
			sc.After(func(ctx context.Context, s *godog.Scenario, err error) (context.Context, error) {
				record(s, err)
				return ctx, nil // the scenario's own error stands; returning it again would repeat it
			})
		},
		Options: &godog.Options{
			Format: fmt.Sprintf("%s,junit:%s,cucumber:%s", opts.Format,
				filepath.Join(opts.ReportsDir, "junit.xml"), filepath.Join(opts.ReportsDir, "cucumber.json")),
			Output: opts.Output, NoColors: !isTerminal(opts.Output),
			FS: opts.Features, Paths: p.paths, Tags: p.tags,
			Strict: true, Concurrency: 1, TestingT: opts.TestingT, DefaultContext: ctx,
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

func finish(opts Options, cat *catalog.Catalog, areas []string, res *report.Results) (*Result, error) {
	impl := opts.Target.Implementation
	rep := report.Build(report.Implementation(impl), suiteVersion, opts.Now(), cat, areas, res)
	r := &Result{Report: rep, ReportPath: filepath.Join(opts.ReportsDir, "conformance-report.yaml")}
	for _, o := range res.Outcomes {
		switch o {
		case report.Passed:
			r.Passed++
		case report.Failed:
			r.Failed++
		case report.Unsupported:
			r.Unsupported++
		}
	}
	for _, s := range cat.Scenarios {
		if contains(areas, s.Area) && res.Get(s) == report.Skipped {
			r.Skipped++
		}
	}
	if err := report.Write(r.ReportPath, rep); err != nil {
		return nil, fmt.Errorf("writing the conformance report: %w", err)
	}
	printSummary(opts.Output, rep, r, cat, res)
	return r, nil
}

// suiteVersion is the version of the features; bump it when a scenario's meaning changes.
const suiteVersion = "v0.1.0"

func printSummary(w io.Writer, rep report.ConformanceReport, r *Result, cat *catalog.Catalog, res *report.Results) {
	fmt.Fprintf(w, "\nConformance of %s %s:\n", rep.Implementation.Project, rep.Implementation.Version)
	for _, p := range rep.Profiles {
		result := p.Core.Result
		if p.Extended != nil {
			result += ", extended " + p.Extended.Result.Result
		}
		fmt.Fprintf(w, "  %-9s %-28s %s\n", p.Name, result, p.Summary)
		if p.Extended != nil && len(p.Extended.UnsupportedFeatures) > 0 {
			fmt.Fprintf(w, "            not supported: %s\n", strings.Join(p.Extended.UnsupportedFeatures, ", "))
		}
		if len(p.UntestedServices) > 0 {
			fmt.Fprintf(w, "            not under test (the target declares no such service): %s\n", strings.Join(p.UntestedServices, ", "))
		}
	}
	if r.Failed > 0 {
		fmt.Fprintf(w, "Failed scenarios:\n")
		for _, s := range cat.Scenarios {
			if res.Get(s) == report.Failed {
				fmt.Fprintf(w, "  %s\n", s.ID())
			}
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped, %d not supported\n", r.Passed, r.Failed, r.Skipped, r.Unsupported)
	fmt.Fprintf(w, "Reports: %s, junit.xml, cucumber.json in %s\n", r.ReportPath, filepath.Dir(r.ReportPath))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
