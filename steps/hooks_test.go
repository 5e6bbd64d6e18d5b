package steps

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cucumber/godog"
)

// godog adds whatever an After hook returns to the scenario's error: a hook that handed the scenario's error
// back would have every failure reported twice ("after scenario hook failed: X, step error: X").
func TestAfterHooksReturnOnlyTheirOwnErrors(t *testing.T) {
	scenarioErr := errors.New("request 4: status 200, want 429")
	removed := map[string]bool{}
	failing := errors.New("permission denied")
	s := New(Env{Gateway: GatewayHooks{
		Apply: func(context.Context, string, []byte) error { return nil },
		Remove: func(_ context.Context, name string, _ []byte) error {
			removed[name] = true
			if strings.HasSuffix(name, "-bad") {
				return failing
			}
			return nil
		}}})

	gw := &gatewaySteps{scenario: newScenario(s)}
	for _, name := range []string{"r-ok", "r1-bad", "r2-bad"} {
		if err := gw.apply(context.Background(), name, nil); err != nil {
			t.Fatal(err)
		}
	}
	other := newScenario(s)
	other.created("another scenario's manifest", func(context.Context) error { removed["other"] = true; return nil })
	err := gw.removeCreated(context.Background())
	if !removed["r-ok"] || removed["other"] {
		t.Errorf("removed %v: want the scenario's own manifests, not another scenario's", removed)
	}
	if !errors.Is(err, failing) || strings.Contains(err.Error(), scenarioErr.Error()) ||
		!strings.Contains(err.Error(), "r1-bad") || !strings.Contains(err.Error(), "r2-bad") {
		t.Errorf("removeCreated = %v, want its own errors, every manifest it could not take back named", err)
	}
	if left := s.LeftBehind(); len(left) != 2 {
		t.Errorf("left behind: %v, want the two manifests that could not be removed", left)
	}
	if err := s.Cleanup(context.Background()); err != nil || !removed["other"] {
		t.Errorf("Cleanup = %v, removed %v: want what the other scenario left removed at the end of the run", err, removed)
	}

	noWay := New(Env{Gateway: GatewayHooks{Apply: func(context.Context, string, []byte) error { return nil }}})
	gw = &gatewaySteps{scenario: newScenario(noWay)}
	_ = gw.apply(context.Background(), "r-kept", nil)
	if err := gw.removeCreated(context.Background()); err != nil || len(noWay.LeftBehind()) != 1 ||
		!strings.Contains(noWay.LeftBehind()[0], "r-kept") {
		t.Errorf("a target with no way to remove: err %v, left behind %v; want the manifest named", err, noWay.LeftBehind())
	}

	ap := &configAppSteps{scenario: newScenario(New(Env{}))}
	if _, err := ap.stopInstances(context.Background(), nil, scenarioErr); err != nil {
		t.Errorf("stopInstances = %v, want nil", err)
	}
	if _, err := newScenario(New(Env{})).attachEvidence(context.Background(), nil, scenarioErr); err != nil {
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
