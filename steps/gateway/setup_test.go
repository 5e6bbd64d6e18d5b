package gateway

import (
	"errors"
	"net/http"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// What the target file (or the harness's machine) lacks for a scenario blocks it: a gateway with one instance
// is not failed for the scenario that needs two, nor for an HTTPS listener or access log the file does not name.
func TestWhatTheTargetFileLacksBlocksTheScenario(t *testing.T) {
	run := core.NewRun(&target.Target{Services: target.Services{Gateway: &target.Gateway{
		Instances: []target.GatewayInstance{{HTTP: "http://127.0.0.1:1"}}}}})
	gw := &gatewaySteps{Scenario: core.NewScenario(run), area: New(run, Hooks{})}
	gw.start()
	if err := gw.sendToRoute(1, sendOptions{method: "GET", spread: alternately}); !core.IsBlocked(err) {
		t.Errorf("two instances wanted, one declared: err = %v, want blocked", err)
	}
	if err := gw.sendToRoute(1, sendOptions{method: "GET", listener: overHTTPS}); !core.IsBlocked(err) {
		t.Errorf("no HTTPS listener declared: err = %v, want blocked", err)
	}
	gw.answers = []*core.Exchange{{Status: http.StatusTooManyRequests, RequestID: "tck-1"}}
	if err := gw.accessLogHas(1, nil); !core.IsBlocked(err) {
		t.Errorf("no access log declared: err = %v, want blocked", err)
	}
	gw.area.hooks.AccessLog = func() (string, error) { return "", errors.New("reading the gateway's access log: permission denied") }
	if err := gw.accessLogHas(1, nil); !core.IsBlocked(err) {
		t.Errorf("an access log the harness cannot read: err = %v, want blocked", err)
	}
}

// "Every answer has the header" checks something: with no answer at all it does not pass.
func TestEveryAnswerOfNoAnswerIsNoPass(t *testing.T) {
	run := core.NewRun(nil)
	gw := &gatewaySteps{Scenario: core.NewScenario(run), area: New(run, Hooks{})}
	gw.start()
	if err := gw.everyAnswerHas(1, "x-ratelimit-limit", "3, 3;w=60"); err == nil {
		t.Error("every answer of none has the header: want an error")
	}
}

func TestEveryRequestOfNoRequestIsNoPass(t *testing.T) {
	run := core.NewRun(nil)
	gw := &gatewaySteps{Scenario: core.NewScenario(run), area: New(run, Hooks{})}
	gw.start()
	if err := gw.passUnlimited(1, len(gw.answers)); err == nil {
		t.Error("every request of none passed without rate-limit headers: want an error")
	}
}
