package harness

import "testing"

// The tags of the feature files are checked against the registry in features/registry_test.go.

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
