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
