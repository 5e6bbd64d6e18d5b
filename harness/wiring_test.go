package harness

import (
	"slices"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/harness/target"
)

// Guards the suite's own wiring: capability tags and the capabilities a target can declare must match, or a
// scenario could be left out of every run without anyone noticing.
func TestCapabilityTagsAndKnownCapabilitiesMatch(t *testing.T) {
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, s := range cat.Scenarios {
		for _, name := range s.TagsWithPrefix(ServiceTag) {
			if !slices.Contains(target.ServiceNames, name) {
				t.Errorf("%s: @service-%s names no service of target.ServiceNames", s.ID(), name)
			}
		}
		for _, c := range s.TagsWithPrefix(report.CapabilityTag) {
			used[c] = true
			if _, ok := target.Known[c]; !ok {
				t.Errorf("%s: @capability-%s is not in target.Known", s.ID(), c)
			}
		}
	}
	for _, s := range cat.Scenarios {
		for _, f := range s.TagsWithPrefix(FixtureTag) {
			if _, ok := fixtureFields[f]; !ok {
				t.Errorf("%s: @fixture-%s names no fixture the harness knows", s.ID(), f)
			}
		}
		known := false
		for _, p := range features.Profiles {
			known = known || (p.Name == s.Profile && p.Area == s.Area)
		}
		if !known {
			t.Errorf("%s: profile %q is not one of features.Profiles of the area %s", s.ID(), s.Profile, s.Area)
		}
	}
	// Capabilities that requirements.go consults rather than a tag.
	used["auth.token-lifetimes"] = true
	for _, p := range features.Profiles {
		if p.Capability != "" {
			used[p.Capability] = true
		}
	}
	for _, c := range target.KnownNames() {
		if !used[c] {
			t.Errorf("capability %s is declared in target.Known but no scenario needs it", c)
		}
	}
}

func TestMatchTagsFollowsGodogGrammar(t *testing.T) {
	tags := []string{"@spec-4.4", "@capability-config.errors"}
	for expr, want := range map[string]bool{
		"":                    true,
		"@spec-4.4":           true,
		"spec-4.4":            true,
		"@spec-2.4":           false,
		"@spec-2.4,@spec-4.4": true,
		"@spec-4.4 && ~@capability-config.errors": false,
		"~@wip":                                  true,
		"@spec-4.4 && @capability-config.errors": true,
	} {
		if got := MatchTags(expr, tags); got != want {
			t.Errorf("MatchTags(%q) = %v, want %v", expr, got, want)
		}
	}
}
