package config

import (
	"context"
	"errors"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// godog adds whatever an After hook returns to the scenario's error: stopping the instances hands the
// scenario's error back never.
func TestStoppingInstancesReturnsOnlyItsOwnErrors(t *testing.T) {
	run := core.NewRun(nil)
	ap := &configAppSteps{Scenario: core.NewScenario(run), area: New(run, nil)}
	if _, err := ap.stopInstances(context.Background(), nil, errors.New("request 4: status 200, want 429")); err != nil {
		t.Errorf("stopInstances = %v, want nil", err)
	}
}
