package coverage

import (
	"slices"
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
		if !slices.Contains(features.Areas, features.Area(s.Area)) || s.Summary == "" || strings.ContainsAny(s.ID, " \t") {
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
	for _, u := range cov.Unearned {
		t.Errorf("unearned citation (add the outcome step, or trim the tag): %s", u)
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
	if err == nil || !strings.Contains(err.Error(), "@spec-9.9 names no section") || !strings.Contains(err.Error(), `"untagged": no @spec-<id> tag`) {
		t.Fatalf("error = %v", err)
	}
}

func TestPrintListsCoveringScenariosAndUncoveredSections(t *testing.T) {
	fsys := fstest.MapFS{"config/a.feature": {Data: []byte("Feature: f\n  @spec-1.1\n  Scenario: one\n    Then it holds\n")}}
	cat, _ := catalog.Load(fsys)
	cov, err := Compute(index(t, `
sections:
  - {id: "1.1", area: config, summary: first, asserts: ["it holds"]}
  - {id: "1.2", area: config, summary: second, notShown: true}
`), cat)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	cov.Print(&b, true)
	out := b.String()
	for _, want := range []string{"config/a/one (config/a.feature:3)", "-- 1.2", "not shown", "1 of 2 sections and rows covered; 1 uncovered", "  1.2 (config)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A tag is a claim: the scenario covers the section only when one of its outcome steps (Then, and the And
// after it) matches the section's asserts. A Given or When step that matches earns nothing.
func TestACitationCountsOnlyWhenAnOutcomeStepAssertsIt(t *testing.T) {
	fsys := fstest.MapFS{"gateway/a.feature": {Data: []byte(`@spec-8.1
Feature: f
  @spec-8.3
  Scenario: asserted
    When 4 requests are sent
    Then request 4 is answered 429
  @spec-8.3
  Scenario: only mentioned
    Given request 4 is answered 429
    Then the answer is 200
  Scenario: table
    Then the headers are:
      | x-ratelimit-reset | 60 |
`)}}
	cat, err := catalog.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cov, err := Compute(index(t, `
sections:
  - {id: "8.1", area: gateway, summary: s, asserts: ["x-ratelimit-reset \\| 60"]}
  - {id: "8.3", area: gateway, summary: s, asserts: ["answered 429"]}
`), cat)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cov.By["8.3"]); got != "asserted" {
		t.Errorf("8.3 covered by %q, want only the scenario that asserts it", got)
	}
	if got := names(cov.By["8.1"]); got != "table" {
		t.Errorf("8.1 covered by %q, want the scenario whose table asserts it", got)
	}
	want := `gateway/a.feature:8 "only mentioned": @spec-8.3: no outcome step asserts it`
	if len(cov.Unearned) != 1 || cov.Unearned[0] != want {
		t.Errorf("unearned = %q, want [%q] (the feature's tag is earned by one of its scenarios)", cov.Unearned, want)
	}
}

func TestAFeatureTagNoScenarioAssertsIsUnearned(t *testing.T) {
	fsys := fstest.MapFS{"gateway/a.feature": {Data: []byte("@spec-8.1\nFeature: f\n  Scenario: s\n    Then nothing\n")}}
	cat, _ := catalog.Load(fsys)
	cov, err := Compute(index(t, `sections: [{id: "8.1", area: gateway, summary: s, asserts: ["counter"]}]`), cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(cov.Unearned) != 1 || !strings.Contains(cov.Unearned[0], "the feature's @spec-8.1: no scenario of it asserts it") {
		t.Errorf("unearned = %q", cov.Unearned)
	}
}

func TestABadAssertsPatternIsAnErrorNamingTheSection(t *testing.T) {
	_, err := LoadSections(fstest.MapFS{"s.yaml": {Data: []byte(`sections: [{id: "8.1", area: gateway, summary: s, asserts: ["("]}]`)}}, "s.yaml")
	if err == nil || !strings.Contains(err.Error(), "section 8.1") {
		t.Fatalf("error = %v", err)
	}
}

func index(t *testing.T, yaml string) []Section {
	t.Helper()
	sections, err := LoadSections(fstest.MapFS{"s.yaml": {Data: []byte(yaml)}}, "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return sections
}

func names(scs []catalog.Scenario) string {
	var out []string
	for _, s := range scs {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}
