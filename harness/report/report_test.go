package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

const feature = `Feature: f
  @spec-1
  Scenario: core one
    Given x
  @spec-1
  Scenario: core two
    Given x
  @spec-1 @capability-config.errors
  Scenario: extended supported
    Given x
  @spec-1 @capability-config.flat-formats
  Scenario: extended unsupported
    Given x
`

func load(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(fstest.MapFS{"config/f.feature": {Data: []byte(feature)}})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestBuildCountsCoreAndExtendedApart(t *testing.T) {
	cat := load(t)
	res := NewResults()
	res.Set(cat.Scenarios[0], Passed, "")
	res.Set(cat.Scenarios[1], Failed, "boom")
	res.Set(cat.Scenarios[2], Passed, "")
	res.SetUnsupported(cat.Scenarios[3], []Requirement{{"capability", "config.flat-formats"}})
	rep := Build(Implementation{Project: "x"}, "v0", time.Unix(0, 0), cat, []features.ProfileName{"config"}, nil, res)

	if len(rep.Profiles) != 1 {
		t.Fatalf("profiles: %+v", rep.Profiles)
	}
	p := rep.Profiles[0]
	if p.Core.Result != "failure" || p.Core.Statistics != (Statistics{Passed: 1, Failed: 1}) {
		t.Errorf("core = %+v", p.Core)
	}
	if len(p.Core.FailedTests) != 1 || p.Core.FailedTests[0] != "config/f/core-two" {
		t.Errorf("failed tests = %v", p.Core.FailedTests)
	}
	if p.Extended == nil || p.Extended.Result.Result != "success" || p.Extended.Statistics.Passed != 1 {
		t.Fatalf("extended = %+v", p.Extended)
	}
	if got := p.Extended.UnsupportedFeatures; len(got) != 1 || got[0] != "config.flat-formats" {
		t.Errorf("unsupported = %v", got)
	}
	if got := p.Extended.SupportedFeatures; len(got) != 1 || got[0] != "config.errors" {
		t.Errorf("supported = %v", got)
	}
}

func TestVerdicts(t *testing.T) {
	for st, want := range map[Statistics]Verdict{
		{Passed: 3}:             "success",
		{Passed: 3, Skipped: 1}: "partial",
		{}:                      "partial",
		{Passed: 3, Failed: 1}:  "failure",
	} {
		if got := verdict(st); got != want {
			t.Errorf("verdict(%+v) = %s, want %s", st, got, want)
		}
	}
}

func TestWriteProducesTheGatewayAPIShape(t *testing.T) {
	cat := load(t)
	rep := Build(Implementation{Project: "x"}, "v0", time.Unix(0, 0), cat, []features.ProfileName{"config"}, nil, NewResults())
	path := filepath.Join(t.TempDir(), "sub", "r.yaml")
	if err := Write(path, rep); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: ConformanceReport", "implementation:", "date: \"1970-01-01T00:00:00Z\"",
		"profiles:", "- name: config", "core:", "result: partial", "Skipped: 2", "skippedTests:"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report lacks %q:\n%s", want, data)
		}
	}
}

// A capability is credited only by scenarios that ran and passed: a blocked one leaves it unverified, a failed
// one names it failed.
func TestCapabilitiesAreCreditedOnlyByPassedScenarios(t *testing.T) {
	cat := load(t)
	for _, c := range []struct {
		outcome                     Outcome
		supported, failed, unverify string
	}{{Passed, "config.errors", "", ""}, {Blocked, "", "", "config.errors"}, {Failed, "", "config.errors", ""}} {
		res := NewResults()
		res.Set(cat.Scenarios[0], Passed, "")
		res.Set(cat.Scenarios[1], Passed, "")
		res.Set(cat.Scenarios[2], c.outcome, "why")
		res.SetUnsupported(cat.Scenarios[3], []Requirement{{"capability", "config.flat-formats"}})
		x := Build(Implementation{}, "v0", time.Unix(0, 0), cat, []features.ProfileName{"config"}, nil, res).Profiles[0].Extended
		got := []string{strings.Join(x.SupportedFeatures, ","), strings.Join(x.FailedFeatures, ","), strings.Join(x.UnverifiedFeatures, ",")}
		if want := []string{c.supported, c.failed, c.unverify}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: supported, failed, unverified = %q, want %q", c.outcome, got, want)
		}
	}
}

// A scenario not under test (its service is not declared) says nothing of the capabilities it needs.
func TestCapabilitiesOfAServiceNotUnderTestAreNotListedUnsupported(t *testing.T) {
	cat := load(t)
	res := NewResults()
	res.Set(cat.Scenarios[0], Passed, "")
	res.Set(cat.Scenarios[1], Passed, "")
	res.Set(cat.Scenarios[2], Passed, "")
	res.SetUnsupported(cat.Scenarios[3], []Requirement{{"service", "configApp"}, {"capability", "config.flat-formats"}})
	p := Build(Implementation{}, "v0", time.Unix(0, 0), cat, []features.ProfileName{"config"}, nil, res).Profiles[0]
	if len(p.Extended.UnsupportedFeatures) != 0 || strings.Join(p.UntestedServices, ",") != "configApp" {
		t.Errorf("unsupported %v, untested %v: want none, and configApp", p.Extended.UnsupportedFeatures, p.UntestedServices)
	}
}

// A profile that lacks its surface fails for it only when some of its scenarios were selected.
func TestAMissingSurfaceFailsAProfileOnlyWhenItsScenariosWereSelected(t *testing.T) {
	cat := load(t)
	reasons := map[features.ProfileName]string{"config": "no such endpoint"}
	p := Build(Implementation{}, "v0", time.Unix(0, 0), cat, []features.ProfileName{"config"}, reasons, NewResults()).Profiles[0]
	if p.Core.Result == Failure || p.Reason == "" {
		t.Errorf("nothing selected: core %s, reason %q; want no failure, and the reason kept", p.Core.Result, p.Reason)
	}
	res := NewResults()
	res.Set(cat.Scenarios[0], Blocked, "no such endpoint")
	if p := Build(Implementation{}, "v0", time.Unix(0, 0), cat, []features.ProfileName{"config"}, reasons, res).Profiles[0]; p.Core.Result != Failure {
		t.Errorf("a blocked scenario: core %s, want failure", p.Core.Result)
	}
}
