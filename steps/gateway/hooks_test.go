package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// godog adds whatever an After hook returns to the scenario's error: the removal of a scenario's manifests
// returns only its own errors, and names every manifest it could not take back.
func TestRemovingManifestsReturnsOnlyItsOwnErrors(t *testing.T) {
	removed := map[string]bool{}
	failing := errors.New("permission denied")
	run := core.NewRun(nil)
	a := New(run, Hooks{
		Apply: func(context.Context, string, []byte) error { return nil },
		Remove: func(_ context.Context, name string, _ []byte) error {
			removed[name] = true
			if strings.HasSuffix(name, "-bad") {
				return failing
			}
			return nil
		}})

	gw := &gatewaySteps{Scenario: core.NewScenario(run), area: a}
	for _, name := range []string{"r-ok", "r1-bad", "r2-bad"} {
		if err := gw.apply(context.Background(), name, nil); err != nil {
			t.Fatal(err)
		}
	}
	other := core.NewScenario(run)
	other.Created("another scenario's manifest", func(context.Context) error { removed["other"] = true; return nil })
	err := gw.RemoveCreated(context.Background())
	if !removed["r-ok"] || removed["other"] {
		t.Errorf("removed %v: want the scenario's own manifests, not another scenario's", removed)
	}
	if !errors.Is(err, failing) || !strings.Contains(err.Error(), "r1-bad") || !strings.Contains(err.Error(), "r2-bad") {
		t.Errorf("removeCreated = %v, want its own errors, every manifest it could not take back named", err)
	}
	if left := run.LeftBehind(); len(left) != 2 {
		t.Errorf("left behind: %v, want the two manifests that could not be removed", left)
	}
	if err := run.Cleanup(context.Background()); err != nil || !removed["other"] {
		t.Errorf("Cleanup = %v, removed %v: want what the other scenario left removed at the end of the run", err, removed)
	}

	noWayRun := core.NewRun(nil)
	noWay := New(noWayRun, Hooks{Apply: func(context.Context, string, []byte) error { return nil }})
	gw = &gatewaySteps{Scenario: core.NewScenario(noWayRun), area: noWay}
	_ = gw.apply(context.Background(), "r-kept", nil)
	if err := gw.RemoveCreated(context.Background()); err != nil || len(noWayRun.LeftBehind()) != 1 ||
		!strings.Contains(noWayRun.LeftBehind()[0], "r-kept") {
		t.Errorf("a target with no way to remove: err %v, left behind %v; want the manifest named", err, noWayRun.LeftBehind())
	}
}
