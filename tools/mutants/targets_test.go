package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every service runs against the reference stack; the gateway also against the rate limit service mode, the
// fortune service and greeting client also against oidc-provider: the suite runs of make test.
func TestEachServiceRunsAgainstTheTargetsOfMakeTest(t *testing.T) {
	want := map[string][]string{
		"gateway":  {"reference", "envoy-ratelimit"},
		"fortune":  {"reference", "oidc-provider"},
		"greeting": {"reference", "oidc-provider"},
		"bus":      {"reference"},
	}
	for service, names := range want {
		if got := targetNames(targetsOf(Mutant{Service: service}, targets)); !slices.Equal(got, names) {
			t.Errorf("%s runs against %v, want %v", service, got, names)
		}
	}
	only, err := selectTargets("envoy-ratelimit")
	if err != nil || len(targetsOf(Mutant{Service: "authserver"}, only)) != 0 {
		t.Errorf("--targets envoy-ratelimit: %v; an authserver mutant must run against none of them", err)
	}
	if _, err := selectTargets("reference,nosuch"); err == nil || !strings.Contains(err.Error(), "envoy-ratelimit") {
		t.Errorf("an unknown target: err = %v, want one that lists the targets", err)
	}
}

// The examples a target starts are where the target looks for them, and the envoy-ratelimit example runs the
// binary it is given.
func TestTheExampleScriptsTheTargetsStartExist(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, f := range []string{"examples/envoy-ratelimit/start.sh", "examples/envoy-ratelimit/target.yaml",
		"examples/oidc-provider/start.sh", "examples/oidc-provider/target-mixed.yaml"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Error(err)
		}
	}
	script, err := os.ReadFile(filepath.Join(root, "examples", "envoy-ratelimit", "start.sh"))
	if err != nil || !strings.Contains(string(script), "REFERENCE_BIN") {
		t.Errorf("start.sh does not take REFERENCE_BIN (%v): the mutant's binary would not be the one started", err)
	}
}

// A mutant is caught when any target catches it; otherwise the first target that did not survive says why.
func TestVerdictOfTheTargets(t *testing.T) {
	cases := []struct {
		runs   []TargetRun
		want   Outcome
		detail string
	}{
		{[]TargetRun{{Target: "reference", Outcome: Survived}, {Target: "envoy-ratelimit", Outcome: Caught}}, Caught, ""},
		{[]TargetRun{{Target: "reference", Outcome: Caught}, {Target: "envoy-ratelimit", Outcome: RunError, Detail: "port taken"}}, Caught, ""},
		{[]TargetRun{{Target: "reference", Outcome: Survived}, {Target: "envoy-ratelimit", Outcome: BrokeStartup, Detail: "gateway exited"}}, BrokeStartup, "envoy-ratelimit: gateway exited"},
		{[]TargetRun{{Target: "reference", Outcome: Survived}, {Target: "oidc-provider", Outcome: Survived}}, Survived, ""},
	}
	for _, c := range cases {
		if got, detail := verdict(c.runs); got != c.want || detail != c.detail {
			t.Errorf("verdict(%+v) = %s, %q; want %s, %q", c.runs, got, detail, c.want, c.detail)
		}
	}
}

// The scenarios of a profile a target fails by design catch nothing; the others do.
func TestExpectedFailuresCatchNothing(t *testing.T) {
	report := `profiles:
  - name: check-token
    core: {result: failure, failedTests: [auth/check-token/a]}
  - name: fortune
    core: {result: failure, failedTests: [fortune/fortune/b], blockedTests: [{name: fortune/fortune/c}]}
`
	path := filepath.Join(t.TempDir(), "conformance-report.yaml")
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := failedScenarios(path, nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("failedScenarios = %v, %v; want the three", all, err)
	}
	some, _ := failedScenarios(path, func(p string) bool { return p == "check-token" })
	if !slices.Equal(some, []string{"fortune/fortune/b", "fortune/fortune/c"}) {
		t.Errorf("with check-token expected to fail: %v, want the fortune scenarios alone", some)
	}
}

// The report names, for each mutant, each target's outcome and first catching scenario.
func TestTheReportNamesEveryTargetOfAMutant(t *testing.T) {
	res := Result{Mutant: Mutant{ID: "gateway-x", Service: "gateway", Spec: "8.1"}, Outcome: Caught, Runs: []TargetRun{
		{Target: "reference", Outcome: Survived}, {Target: "envoy-ratelimit", Outcome: Caught, Catching: []string{"gateway/ratelimit/s"}}}}
	md := string(markdown(resultFile{Total: 1, Complete: true, Summary: summary([]Result{res}), Mutants: entriesOf([]Result{res})}))
	for _, want := range []string{"reference: survived<br>envoy-ratelimit: gateway/ratelimit/s",
		"- envoy-ratelimit (cmd/tck: TestTheGatewayFeatureThroughEnvoysRateLimitService; gateway): caught 1 of the 1 mutants run against it, 1 of them alone"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// A start that fails is reported by what the script said, not by the tail of the logs it shows after.
func TestAFailedStartSaysWhatTheScriptSaid(t *testing.T) {
	out := "a process exited before gateway 1 answered; logs in /tmp/x/logs:\n==> redis.log <==\n* Ready to accept connections\n"
	if got := scriptSays(out, errors.New("exited")); got != "a process exited before gateway 1 answered; logs in /tmp/x/logs:" {
		t.Errorf("scriptSays = %q", got)
	}
	if got := scriptSays("nothing known\n", errors.New("timed out")); got != "timed out" {
		t.Errorf("scriptSays without a known line = %q, want the wait's error", got)
	}
}
