package gateway

import (
	"net/http"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

func parsePolicy(t *testing.T, text string) *policyManifest {
	t.Helper()
	var p policyManifest
	if err := yaml.Unmarshal([]byte(text), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// A probe is selected by the policy's first rule and spends no counter of the scenario's: an Exact value as it
// is, a Distinct or inverted one fresh, and a header named twice (Distinct beside Exact with invert) fresh.
func TestProbesAreSelectedButSpendNoScenarioCounter(t *testing.T) {
	p := parsePolicy(t, `spec:
  rateLimit:
    global:
      rules:
        - clientSelectors:
            - headers:
                - {type: Distinct, name: x-user-id}
                - {name: x-user-id, value: admin, invert: true}
            - headers:
                - {type: Exact, name: X-TIER, value: gold}
          limit: {requests: 3, unit: Minute}
`)
	h := p.probeHeaders()
	if h["x-tier"] != "gold" {
		t.Errorf("x-tier = %q, want the Exact value gold (named X-TIER in the policy)", h["x-tier"])
	}
	if u := h["x-user-id"]; !strings.HasPrefix(u, "tck-probe-") || u == "admin" {
		t.Errorf("x-user-id = %q, want a fresh value, not the inverted admin", u)
	}
	if h["x-tck-probe"] == "" {
		t.Error("no x-tck-probe: the upstream would count the probe")
	}
	if again := p.probeHeaders(); again["x-user-id"] == h["x-user-id"] {
		t.Error("two probes share a Distinct value: they would spend one counter")
	}
}

func TestTheLimitHeaderOfAChangedPolicy(t *testing.T) {
	p := parsePolicy(t, "spec: {rateLimit: {global: {rules: [{limit: {requests: 5, unit: Hour}}]}}}\n")
	if got, err := p.limitHeader(); err != nil || got != "5, 5;w=3600" {
		t.Errorf("limitHeader = %q, %v; want 5, 5;w=3600", got, err)
	}
	two := parsePolicy(t, "spec: {rateLimit: {global: {rules: [{limit: {requests: 5, unit: Hour}}, {limit: {requests: 1, unit: Second}}]}}}\n")
	if _, err := two.limitHeader(); err == nil {
		t.Error("a policy of two rules: want an error, the header depends on which rule counts the probe")
	}
}

// Judging requests in turn fails on any status or remaining that differs, and on a list of another length.
func TestAnsweredInTurnJudgesEveryRequest(t *testing.T) {
	run := core.NewRun(nil)
	gw := &gatewaySteps{Scenario: core.NewScenario(run), area: New(run, Hooks{})}
	gw.start()
	answer := func(status int, remaining string) *core.Exchange {
		return &core.Exchange{Status: status, Header: http.Header{"X-Ratelimit-Remaining": {remaining}}}
	}
	gw.answers = []*core.Exchange{answer(200, "1"), answer(200, "0"), answer(429, "0")}
	if err := gw.answeredInTurn(3, "200, 200, 429", "1, 0, 0"); err != nil {
		t.Errorf("the answers as listed: %v", err)
	}
	for _, c := range []struct{ statuses, remainings string }{
		{"200, 200, 200", "1, 0, 0"}, {"200, 200, 429", "1, 1, 0"}, {"200, 429", "1, 0"}, {"200, x, 429", "1, 0, 0"},
	} {
		if err := gw.answeredInTurn(3, c.statuses, c.remainings); err == nil {
			t.Errorf("answered %s with %s: want a failure", c.statuses, c.remainings)
		}
	}
}
