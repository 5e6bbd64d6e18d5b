package gateway

import (
	"context"
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
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

// Every placeholder the gateway feature names is known to a scenario of a target that declares the gateway
// alone (it once used the authorization server's {user}, unknown without one), or is set by a step
// ({request_id}).
func TestTheGatewayFeatureNeedsNoOtherArea(t *testing.T) {
	text, err := fs.ReadFile(features.FS, "gateway/ratelimit.feature")
	if err != nil {
		t.Fatal(err)
	}
	run := core.NewRun(nil)
	gw := &gatewaySteps{Scenario: core.NewScenario(run), area: New(run, Hooks{})}
	gw.start()
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\{[a-z_]+\}`).FindAllString(string(text), -1) {
		if seen[m] || m == "{request_id}" {
			continue
		}
		seen[m] = true
		if _, err := gw.Expand(m); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	if len(seen) < 3 {
		t.Errorf("found only %v in the feature: the test reads the wrong file", seen)
	}
}
