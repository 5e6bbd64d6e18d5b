package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/target"
)

// actionRun is what one run of the action's entry script left.
type actionRun struct {
	exit             int
	log              string
	summary, outputs string
}

// runAction runs scripts/action.sh as GitHub runs it: the inputs as INPUT_* variables, and the files of
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
func runAction(t *testing.T, root, tck string, inputs map[string]string) actionRun {
	t.Helper()
	dir := t.TempDir()
	summary, outputs := filepath.Join(dir, "summary.md"), filepath.Join(dir, "outputs")
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "action.sh"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TCK="+tck, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+outputs)
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	out, err := cmd.CombinedOutput()
	r := actionRun{log: string(out)}
	if exit, ok := err.(*exec.ExitError); ok {
		r.exit = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	s, _ := os.ReadFile(summary)
	o, _ := os.ReadFile(outputs)
	r.summary, r.outputs = string(s), string(o)
	return r
}

// The action's entry script against oidc-provider, as the README's CI section runs it: with the example's
// expectations file it passes and its summary gives the profiles and the badge; without the check-token
// entry it fails naming each blocked scenario by its stable ID; bad inputs are errors with their message in
// the summary.
func TestTheActionEntryScriptRunsTheSuiteAndWritesTheSummary(t *testing.T) {
	needs.Program(t, "node (oidc-provider)", "chromium")
	root, err := boot.Checkout()
	if err != nil {
		t.Fatal(err)
	}
	issuer := startOIDCProvider(t, root, t.TempDir(), freeport.GetN(t, 1)[0])
	tg, err := target.Load(filepath.Join(root, "examples", "oidc-provider", "target.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tg.Services.AuthServer.Issuer = issuer
	file := writeTarget(t, targetYAML(t, tg))
	dir := filepath.Dir(file)
	tck := builtTCK(t)
	expectations := filepath.Join(root, "examples", "oidc-provider", "expectations.yaml")

	reports := filepath.Join(dir, "reports")
	r := runAction(t, root, tck, map[string]string{"target": file, "expect": expectations, "reports": reports})
	if r.exit != 0 || r.outputs != "result=passed\nreports="+reports+"\nexit-code=0\n" {
		t.Fatalf("with the expectations file: exit %d, outputs %q\n%s", r.exit, r.outputs, r.log)
	}
	for _, want := range []string{"![fortune-tck badge](data:image/svg+xml;base64,", "## fortune-tck v0.1.0: 15/25 passed against `oidc-provider 9.13.3`",
		"**Passed**: every failed or blocked scenario is expected by `" + expectations + "` (10)",
		"| check-token | failure | blocked | core: 0 passed, 0 failed, 9 blocked, 0 skipped; extended: 0 passed, 0 failed, 1 blocked, 0 skipped, 0 requirements not supported; no check_token endpoint: 404 at " + issuer + "/check_token |",
		"<details><summary>Expected, still failing (10)</summary>"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("the job summary lacks %q:\n%s", want, r.summary)
		}
	}
	for _, f := range []string{"junit.xml", "cucumber.json", "conformance-report.yaml", "index.html", "badge.svg"} {
		if _, err := os.Stat(filepath.Join(reports, f)); err != nil {
			t.Errorf("the reports folder lacks %s", f)
		}
	}

	full, err := os.ReadFile(expectations)
	if err != nil {
		t.Fatal(err)
	}
	entry := "  - id: profile:check-token\n    outcome: blocked\n"
	i := strings.Index(string(full), entry)
	j := strings.Index(string(full)[i+len(entry):], "  - ")
	if i < 0 || j < 0 {
		t.Fatalf("no entry profile:check-token in %s", expectations)
	}
	less := filepath.Join(dir, "less.yaml")
	if err := os.WriteFile(less, append(full[:i:i], full[i+len(entry)+j:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runAction(t, root, tck, map[string]string{"target": file, "expect": less, "reports": reports, "tags": "@profile-check-token"})
	if r.exit != 1 || !strings.HasPrefix(r.outputs, "result=failed\n") || !strings.Contains(r.log, "::error title=fortune-tck::the run failed") {
		t.Errorf("without the check-token entry: exit %d, outputs %q\n%s", r.exit, r.outputs, r.log)
	}
	for _, want := range []string{"### Unexpected: failed or blocked, and no entry of the expectations file expects them (10)",
		"- **blocked** `auth/check-token/every-field-of-the-token-check-with-its-type-and-value`: `no check_token endpoint: 404 at " + issuer + "/check_token`"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("the job summary lacks %q:\n%s", want, r.summary)
		}
	}

	r = runAction(t, root, tck, map[string]string{"reports": reports})
	if r.exit != 2 || r.outputs != "result=error\nreports="+reports+"\nexit-code=2\n" || !strings.Contains(r.log, "the input target is required") {
		t.Errorf("without a target: exit %d, outputs %q\n%s", r.exit, r.outputs, r.log)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("expected:\n  - id: profile:nope\n    outcome: blocked\n    why: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runAction(t, root, tck, map[string]string{"target": file, "expect": bad, "reports": reports})
	if r.exit != 2 || !strings.Contains(r.summary, "## fortune-tck: the run could not be done (exit 2)") || !strings.Contains(r.summary, bad+`:2: "profile:nope" is no stable ID`) {
		t.Errorf("a bad expectations file: exit %d\n%s\nsummary:\n%s", r.exit, r.log, r.summary)
	}
}
