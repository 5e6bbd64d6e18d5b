package config

import (
	"net/http"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

func appSteps(t *testing.T) *configAppSteps {
	t.Helper()
	run := core.NewRun(nil)
	return &configAppSteps{Scenario: core.NewScenario(run), area: New(run, nil)}
}

// A refresh lists exactly the keys the step names, in any order; Spring's config.client.version is left out,
// and anything but a JSON array fails.
func TestChangedKeysAreExactly(t *testing.T) {
	for _, tt := range []struct {
		body, want string
		ok         bool
	}{
		{`["b","a"]`, `["a","b"]`, true},
		{`["config.client.version","level"]`, `["level"]`, true},
		{`["config.client.version"]`, `[]`, true},
		{`[]`, `[]`, true},
		{`["level","kept"]`, `["level"]`, false},
		{`["level"]`, `["level","added"]`, false},
		{`[]`, `["level"]`, false},
		{`{"keys":["level"]}`, `["level"]`, false},
		{`["level","level"]`, `["level"]`, false},
	} {
		ap := appSteps(t)
		ap.Last = &core.Exchange{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(tt.body)}
		if err := ap.changedKeysAre(tt.want); (err == nil) != tt.ok {
			t.Errorf("answer %s, want exactly %s: err = %v", tt.body, tt.want, err)
		}
	}
}

// {port-N} blocks the step that names an instance not started yet; lists name only started instances.
func TestInstancesNotStartedAreNotNamed(t *testing.T) {
	ap := appSteps(t)
	ap.registerOutcomesPlaceholders()
	_, err := ap.Expand("{app}:{port-1}")
	if !core.IsBlocked(err) {
		t.Errorf("{port-1} before any instance: %v, want blocked", err)
	}
	if _, err := ap.instanceList("instances 1 and 2"); err == nil {
		t.Error("a list of instances that were not started was accepted")
	}
	if got, err := ap.instanceList("no instance"); err != nil || len(got) != 0 {
		t.Errorf("no instance: %v %v", got, err)
	}
	if err := ap.reachedExactly(1, "fortune", "no instance", 0); err == nil || core.IsBlocked(err) {
		t.Errorf("waiting for no instance, without a quiet period, is a mistake of the feature: %v", err)
	}
}
