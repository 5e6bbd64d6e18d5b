package steps

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// godog adds whatever an After hook returns to the scenario's error: a hook that handed the scenario's error
// back would have every failure reported twice ("after scenario hook failed: X, step error: X"). (The gateway's
// removal of manifests is tested in its package.)
func TestAfterHooksReturnOnlyTheirOwnErrors(t *testing.T) {
	scenarioErr := errors.New("request 4: status 200, want 429")
	if _, err := core.NewScenario(core.NewRun(nil)).AttachEvidence(context.Background(), nil, scenarioErr); err != nil {
		t.Errorf("attachEvidence = %v, want nil", err)
	}
}

// Every hook the suite registers, step and scenario hooks together, run by godog on a scenario that fails: the
// scenario's error must be the step's error once, and a failed Given must still make it blocked.
func TestAFailedScenarioReportsItsStepErrorOnce(t *testing.T) {
	const stepErr = "no request was made before this step"
	for _, c := range []struct {
		keyword string
		blocked bool
	}{{"Given", true}, {"Then", false}} {
		t.Run(c.keyword, func(t *testing.T) {
			s := New(Env{Gateway: GatewayHooks{Remove: func(context.Context, string, []byte) error { return nil }}})
			var got error
			var blocked bool
			suite := godog.TestSuite{
				ScenarioInitializer: func(sc *godog.ScenarioContext) {
					s.InitializeScenario(sc)
					sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
						got = err
						blocked, _ = Verdict(ctx, err)
						return ctx, nil
					})
				},
				Options: &godog.Options{Format: "progress", Output: io.Discard, Strict: true, FeatureContents: []godog.Feature{{
					Name:     "hooks.feature",
					Contents: []byte("Feature: hooks\n  Scenario: a step fails\n    " + c.keyword + " the answer is 200\n"),
				}}},
			}
			if status := suite.Run(); status == 0 {
				t.Fatal("the scenario passed; its step was meant to fail")
			}
			if got == nil || got.Error() != stepErr {
				t.Errorf("the scenario's error is %q, want the step's error once: %q", got, stepErr)
			}
			if blocked != c.blocked {
				t.Errorf("blocked = %v after a failed %s step, want %v", blocked, c.keyword, c.blocked)
			}
		})
	}
}
