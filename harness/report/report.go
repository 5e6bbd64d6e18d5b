// Package report turns the outcome of a run into a conformance report in the shape of the Gateway API
// ConformanceReport: one profile per area, core and extended results, statistics and the names of the failed
// and skipped scenarios. We count outcomes ourselves because godog's JUnit writer does not count skips.
package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// Outcome is what happened to one scenario; the registry (features) defines the outcomes.
type Outcome = features.Outcome

// The outcomes, under the names this package has always used.
const (
	Passed       = features.Passed
	Failed       = features.Failed
	Skipped      = features.Skipped
	Blocked      = features.Blocked
	Unsupported  = features.Unsupported
	NotUnderTest = features.NotUnderTest
)

// Results are the outcomes of a run by scenario ID, with the failure message of each failed one and what the
// target lacks for each unsupported one.
type Results struct {
	Outcomes map[string]Outcome
	Messages map[string]string
	Missing  map[string][]Requirement
}

// Requirement is something a scenario needs from a target.
type Requirement struct {
	Kind RequirementKind
	Name string
}

// RequirementKind tells services from capabilities and fixtures; the registry (features) defines the kinds.
type RequirementKind = features.RequirementKind

// The requirement kinds.
const (
	NeedsService    = features.NeedsService
	NeedsCapability = features.NeedsCapability
	NeedsFixture    = features.NeedsFixture
)

func (r Requirement) String() string { return string(r.Kind) + " " + r.Name }

// Feature names the requirement among a profile's unsupported features: a capability by its name, anything
// else with its kind ("fixture users.outsider").
func (r Requirement) Feature() string {
	if r.Kind == NeedsCapability {
		return r.Name
	}
	return r.String()
}

// NewResults returns empty results.
func NewResults() *Results {
	return &Results{Outcomes: map[string]Outcome{}, Messages: map[string]string{}, Missing: map[string][]Requirement{}}
}

// SetUnsupported records a scenario the target cannot run, and why: not under test when a service is missing,
// else not supported.
func (r *Results) SetUnsupported(s catalog.Scenario, missing []Requirement) {
	r.Outcomes[s.ID()] = Unsupported
	for _, m := range missing {
		if m.Kind == NeedsService {
			r.Outcomes[s.ID()] = NotUnderTest
		}
	}
	r.Missing[s.ID()] = missing
}

// Set records the outcome of a scenario.
func (r *Results) Set(s catalog.Scenario, o Outcome, message string) {
	r.Outcomes[s.ID()] = o
	if message != "" {
		r.Messages[s.ID()] = message
	}
}

// Get returns the outcome of a scenario; one never recorded was skipped.
func (r *Results) Get(s catalog.Scenario) Outcome {
	if o, ok := r.Outcomes[s.ID()]; ok {
		return o
	}
	return Skipped
}

// ConformanceReport is the machine-readable report of one run against one implementation.
type ConformanceReport struct {
	APIVersion     string         `yaml:"apiVersion"`
	Kind           string         `yaml:"kind"`
	Implementation Implementation `yaml:"implementation"`
	Date           string         `yaml:"date"`
	Mode           string         `yaml:"mode"`
	SuiteVersion   string         `yaml:"suiteVersion"`
	Profiles       []Profile      `yaml:"profiles"`
	// LeftBehind names what the suite created in the target and could not remove, or had no way to.
	LeftBehind []string `yaml:"leftBehind,omitempty"`
	// Expectations is the run judged against an expectations file (tck run --expect), when one was given.
	Expectations *Expectations `yaml:"expectations,omitempty"`
}

// Implementation identifies what was tested.
type Implementation struct {
	Organization string   `yaml:"organization"`
	Project      string   `yaml:"project"`
	URL          string   `yaml:"url"`
	Version      string   `yaml:"version"`
	Contact      []string `yaml:"contact"`
}

// Profile is the result of one profile (a concern of an area).
type Profile struct {
	Name    features.ProfileName `yaml:"name"`
	Summary string               `yaml:"summary"`
	// Reason says why no scenario of the profile could run: a surface it needs that the target lacks.
	Reason   string    `yaml:"reason,omitempty"`
	Core     Result    `yaml:"core"`
	Extended *Extended `yaml:"extended,omitempty"`
	// UntestedServices are services of the area the target does not declare; their scenarios are not counted.
	UntestedServices []string `yaml:"untestedServices,omitempty"`
}

// Verdict is the result of a profile's core or extended scenarios, as the Gateway API's conformance reports
// spell it; the registry (features.Result) defines the values.
type Verdict = features.Result

// The verdicts, under the names this package has always used.
const (
	Success = features.ResultSuccess
	// Partial: nothing failed or was blocked, but some scenarios were skipped, or none ran.
	Partial = features.ResultPartial
	// BlockedVerdict: nothing failed, but preconditions failed before some scenarios reached their behaviour.
	BlockedVerdict = features.ResultBlocked
	Failure        = features.ResultFailure
	// NotSupported: the target declares none of what the scenarios need.
	NotSupported = features.ResultNotSupported
)

// Result sums up a set of scenarios.
type Result struct {
	Result       Verdict       `yaml:"result"`
	Statistics   Statistics    `yaml:"statistics"`
	FailedTests  []string      `yaml:"failedTests,omitempty"`
	BlockedTests []BlockedTest `yaml:"blockedTests,omitempty"`
	SkippedTests []string      `yaml:"skippedTests,omitempty"`
	// PassedTests and UnsupportedTests name the other scenarios, so that every scenario's outcome can be read
	// back from the report by its stable ID (tck diff compares two runs by them).
	PassedTests      []string `yaml:"passedTests,omitempty"`
	UnsupportedTests []string `yaml:"unsupportedTests,omitempty"`
}

// BlockedTest is a scenario stopped before its behaviour, with the cause.
type BlockedTest struct {
	Name  string `yaml:"name"`
	Cause string `yaml:"cause"`
}

// Extended is the result of the scenarios that need an optional capability. A declared capability is
// supported only when its scenarios ran on real artefacts and passed: at least one passed and none failed or
// was blocked. One with a failed scenario is failed; one whose scenarios were all blocked or skipped is
// unverified: declared, but nothing showed it.
type Extended struct {
	Result              `yaml:",inline"`
	SupportedFeatures   []string `yaml:"supportedFeatures,omitempty"`
	FailedFeatures      []string `yaml:"failedFeatures,omitempty"`
	UnverifiedFeatures  []string `yaml:"unverifiedFeatures,omitempty"`
	UnsupportedFeatures []string `yaml:"unsupportedFeatures,omitempty"`
}

// Statistics counts scenarios; the capitalised keys are the Gateway API's.
type Statistics struct {
	Passed  int `yaml:"Passed"`
	Failed  int `yaml:"Failed"`
	Blocked int `yaml:"Blocked,omitempty"`
	Skipped int `yaml:"Skipped"`
}

// Build makes the report of a run. profiles are the profiles under test, in report order; reasons say why a
// profile could not run at all.
func Build(impl Implementation, suiteVersion string, date time.Time, cat *catalog.Catalog, profiles []features.ProfileName, reasons map[features.ProfileName]string, res *Results) ConformanceReport {
	rep := ConformanceReport{
		APIVersion: APIVersion, Kind: KindName, Implementation: impl,
		Date: date.UTC().Format(time.RFC3339), Mode: "default", SuiteVersion: suiteVersion,
	}
	for _, name := range profiles {
		p := buildProfile(name, cat, res)
		if r := reasons[name]; r != "" {
			p.Reason = r
			// The profile fails for the surface it lacks when it was asked to run, not when --tags left
			// every scenario of it out.
			if p.Core.Statistics.Blocked > 0 || (p.Extended != nil && p.Extended.Statistics.Blocked > 0) {
				p.Core.Result = Failure
			}
		}
		rep.Profiles = append(rep.Profiles, p)
	}
	return rep
}

func buildProfile(profile features.ProfileName, cat *catalog.Catalog, res *Results) Profile {
	var core, ext Result
	coreUnsupported := 0
	unsupported, untested := map[string]bool{}, map[string]bool{}
	capOutcomes := map[string][]Outcome{} // the outcomes of each declared capability's scenarios
	for _, s := range cat.Scenarios {
		if s.Profile != profile {
			continue
		}
		caps := s.TagsWithPrefix(features.CapabilityTag)
		o := res.Get(s)
		if o == NotUnderTest {
			// A service the target does not declare: its scenarios say nothing of the capabilities they need.
			for _, m := range res.Missing[s.ID()] {
				if m.Kind == NeedsService {
					untested[m.Name] = true
				}
			}
			continue
		}
		for _, m := range res.Missing[s.ID()] {
			unsupported[m.Feature()] = true
		}
		if o != Unsupported {
			for _, c := range caps {
				capOutcomes[c] = append(capOutcomes[c], o)
			}
		}
		if len(caps) == 0 {
			if o == Unsupported {
				coreUnsupported++
			}
			core.add(s, o, res.Messages[s.ID()])
		} else {
			ext.add(s, o, res.Messages[s.ID()])
		}
	}
	core.Result = verdict(core.Statistics)
	if core.Statistics == (Statistics{}) && coreUnsupported > 0 {
		core.Result = NotSupported // the whole profile is optional, and the target does not declare it
	}
	p := Profile{Name: profile, Core: core, UntestedServices: sortedKeys(untested)}
	p.Summary = summary(core.Statistics, ext.Statistics, len(unsupported))
	if ext.Statistics != (Statistics{}) || len(unsupported) > 0 {
		ext.Result = verdict(ext.Statistics)
		if ext.Statistics == (Statistics{}) {
			ext.Result = NotSupported // nothing ran: that is not a partial result
		}
		x := &Extended{Result: ext, UnsupportedFeatures: sortedKeys(unsupported)}
		x.SupportedFeatures, x.FailedFeatures, x.UnverifiedFeatures = judgeCapabilities(capOutcomes, unsupported)
		p.Extended = x
	}
	return p
}

// judgeCapabilities sorts the declared capabilities by what their scenarios showed: supported when at least
// one passed and none failed or was blocked, failed when one failed, unverified when none passed or failed.
func judgeCapabilities(outcomes map[string][]Outcome, unsupported map[string]bool) (supported, failed, unverified []string) {
	for _, c := range sortedKeys(boolKeys(outcomes)) {
		if unsupported[c] {
			continue
		}
		os := outcomes[c]
		switch {
		case slices.Contains(os, Failed):
			failed = append(failed, c)
		case slices.Contains(os, Passed) && !slices.Contains(os, Blocked):
			supported = append(supported, c)
		default:
			unverified = append(unverified, c)
		}
	}
	return supported, failed, unverified
}

func boolKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func (r *Result) add(s catalog.Scenario, o Outcome, message string) {
	switch o {
	case Passed:
		r.Statistics.Passed++
		r.PassedTests = append(r.PassedTests, s.ID())
	case Unsupported:
		r.UnsupportedTests = append(r.UnsupportedTests, s.ID())
	case Failed:
		r.Statistics.Failed++
		r.FailedTests = append(r.FailedTests, s.ID())
	case Blocked:
		r.Statistics.Blocked++
		r.BlockedTests = append(r.BlockedTests, BlockedTest{Name: s.ID(), Cause: message})
	case Skipped:
		r.Statistics.Skipped++
		r.SkippedTests = append(r.SkippedTests, s.ID())
	}
}

// verdict follows the Gateway API: any failure fails; skips make a pass partial. Blocked scenarios, with no
// failure, make the result "blocked": nothing failed, but not everything could be verified.
func verdict(st Statistics) Verdict {
	switch {
	case st.Failed > 0:
		return Failure
	case st.Blocked > 0:
		return BlockedVerdict
	case st.Skipped > 0 || st.Passed == 0:
		return Partial
	}
	return Success
}

func summary(core, ext Statistics, unsupported int) string {
	s := "core: " + counts(core)
	if ext != (Statistics{}) || unsupported > 0 {
		s += fmt.Sprintf("; extended: %s, %d requirements not supported", counts(ext), unsupported)
	}
	return s
}

func counts(st Statistics) string {
	s := fmt.Sprintf("%d passed, %d failed", st.Passed, st.Failed)
	if st.Blocked > 0 {
		s += fmt.Sprintf(", %d blocked", st.Blocked)
	}
	return s + fmt.Sprintf(", %d skipped", st.Skipped)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Write stores the report as YAML at path, creating its folder.
func Write(path string, rep ConformanceReport) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(rep); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
