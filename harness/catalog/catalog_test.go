package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fortune-tck/fortune-tck/features"
)

func TestLoadsTheFeaturesWithAreasLinesAndTags(t *testing.T) {
	cat, err := Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Scenarios) == 0 {
		t.Fatal("no scenarios in the embedded features")
	}
	for _, s := range cat.Scenarios {
		if s.Area == "" || s.Line == 0 || s.Name == "" {
			t.Errorf("incomplete scenario %+v", s)
		}
		if len(s.TagsWithPrefix("@spec-")) == 0 {
			t.Errorf("%s has no @spec- tag", s.ID())
		}
	}
}

const outline = `Feature: f
  @spec-1
  Scenario Outline: thing <x>
    Given step <x>
    Examples:
      | x |
      | 1 |
      | 2 |
`

func TestOutlineRowsAreScenariosWithTheirOwnLine(t *testing.T) {
	cat, err := Load(fstest.MapFS{"config/a.feature": {Data: []byte(outline)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Scenarios) != 2 || cat.Scenarios[0].Line != 7 || cat.Scenarios[1].Line != 8 {
		t.Fatalf("scenarios %+v", cat.Scenarios)
	}
	if got := cat.Scenarios[1].ID(); got != "config/a/thing-2" {
		t.Errorf("ID = %q", got)
	}
	if got := cat.Scenarios[1].Location(); got != "config/a.feature:8" {
		t.Errorf("Location = %q", got)
	}
	if !cat.Scenarios[0].HasTag("@spec-1") {
		t.Error("tag lost")
	}
}

func TestRefusesWhatWouldLoseScenarios(t *testing.T) {
	dup := "Feature: f\n  Scenario: same\n    Given x\n  Scenario: same\n    Given x\n"
	cases := map[string]fstest.MapFS{
		"outside an area":   {"a.feature": {Data: []byte(outline)}},
		"indistinguishable": {"config/a.feature": {Data: []byte(dup)}},
		"not gherkin":       {"config/a.feature": {Data: []byte("Feature: f\n  Scenario: s\n    Given x\n      | a |\n      | b | c |\n")}},
	}
	for name, fsys := range cases {
		if _, err := Load(fsys); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), ".feature") {
			t.Errorf("%s: error %v does not name the file", name, err)
		}
	}
}
