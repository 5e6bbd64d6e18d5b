package coverage

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// The real index and features must agree: every tag names a section, ids are unique, areas are known.
func TestTheFeaturesCiteOnlySectionsOfTheIndex(t *testing.T) {
	sections, err := LoadSections(features.FS, "sections.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range sections {
		if seen[s.ID] {
			t.Errorf("section %s listed twice", s.ID)
		}
		seen[s.ID] = true
		if !contains(features.Areas, s.Area) || s.Summary == "" || strings.ContainsAny(s.ID, " \t") {
			t.Errorf("bad section entry %+v", s)
		}
	}
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	cov, err := Compute(sections, cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(cov.Uncovered()) == len(sections) {
		t.Error("no section is covered")
	}
}

func TestAnUnknownOrMissingSpecTagIsAnError(t *testing.T) {
	fsys := fstest.MapFS{"config/a.feature": {Data: []byte(
		"Feature: f\n  @spec-9.9\n  Scenario: typo\n    Given x\n  Scenario: untagged\n    Given x\n")}}
	cat, err := catalog.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compute([]Section{{ID: "1.1", Area: "config", Summary: "s"}}, cat)
	if err == nil || !strings.Contains(err.Error(), "@spec-9.9 names no section") || !strings.Contains(err.Error(), "untagged: no @spec-<id> tag") {
		t.Fatalf("error = %v", err)
	}
}

func TestPrintListsCoveringScenariosAndUncoveredSections(t *testing.T) {
	fsys := fstest.MapFS{"config/a.feature": {Data: []byte("Feature: f\n  @spec-1.1\n  Scenario: one\n    Given x\n")}}
	cat, _ := catalog.Load(fsys)
	cov, err := Compute([]Section{{ID: "1.1", Area: "config", Summary: "first"}, {ID: "1.2", Area: "config", Summary: "second", NotShown: true}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	cov.Print(&b, true)
	out := b.String()
	for _, want := range []string{"config/a.feature:3 one", "-- 1.2", "not shown", "1 of 2 sections and rows covered; 1 uncovered", "  1.2 (config)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
