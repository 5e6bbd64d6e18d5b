package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/gittest"
)

// tinySuite is a features folder of two configuration server scenarios and a server whose /flaky answers 200
// or 500 as told: a target that passes, then fails, then passes again.
func tinySuite(t *testing.T) (features, targetFile string, broken *atomic.Bool) {
	t.Helper()
	dir := t.TempDir()
	features = filepath.Join(dir, "features")
	if err := os.MkdirAll(filepath.Join(features, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	feature := `Feature: Tiny

  Scenario: The root answers
    When I request "/" from the configuration server
    Then the answer is 200

  Scenario: The flaky path answers
    When I request "/flaky" from the configuration server
    Then the answer is 200
`
	if err := os.WriteFile(filepath.Join(features, "config", "tiny.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	broken = &atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/flaky" && broken.Load() {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	targetFile = filepath.Join(dir, "target.yaml")
	doc := "implementation: {organization: test, project: tiny, version: '1'}\nservices:\n  configServer:\n    url: " + srv.URL +
		"\n    repository: {uri: " + gittest.BareRepository(t) + "}\n"
	if err := os.WriteFile(targetFile, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return features, targetFile, broken
}

const flaky = "config/tiny/the-flaky-path-answers"

// The known differences of a target: a run that fails exits 0 with an expectations file that names the
// failure, 1 without it (naming the scenario), and 1 once the scenario passes again (naming the stale entry);
// tck diff of the passing and the failing run exits 1 naming the scenario; tck expect --from writes the file.
func TestExpectationsAndDiffOfTwoRuns(t *testing.T) {
	features, file, broken := tinySuite(t)
	dir := t.TempDir()
	passing, failing := filepath.Join(dir, "passing"), filepath.Join(dir, "failing")
	if code, out, errOut := runTCK("run", "--target", file, "--features", features, "--reports", passing); code != exitOK {
		t.Fatalf("the passing run: exit %d\n%s%s", code, out, errOut)
	}
	broken.Store(true)
	if code, out, _ := runTCK("run", "--target", file, "--features", features, "--reports", failing); code != exitFailed || !strings.Contains(out, flaky) {
		t.Fatalf("the failing run: exit %d, want 1 naming %s\n%s", code, flaky, out)
	}

	code, out, errOut := runTCK("diff", passing, failing)
	if code != exitFailed || !strings.Contains(out, "! "+flaky+" (passed -> failed)") || !strings.Contains(out, "1 regression.") {
		t.Errorf("diff passing failing: exit %d, want 1 naming %s\n%s%s", code, flaky, out, errOut)
	}
	if code, out, _ := runTCK("diff", failing, filepath.Join(passing, "conformance-report.yaml")); code != exitOK || !strings.Contains(out, "newly passing (1):\n  "+flaky) {
		t.Errorf("diff failing passing: exit %d, want 0 with the scenario newly passing\n%s", code, out)
	}
	if code, out, _ := runTCK("diff", "--format", "markdown", passing, failing); code != exitFailed || !strings.Contains(out, "| ❌ | `"+flaky+"` | passed | failed |") {
		t.Errorf("diff --format markdown: exit %d\n%s", code, out)
	}

	expectations := filepath.Join(dir, "expectations.yaml")
	if code, out, errOut := runTCK("expect", "--from", failing, "--out", expectations, "--features", features); code != exitOK || !strings.Contains(out, "1 entries") {
		t.Fatalf("expect --from: exit %d\n%s%s", code, out, errOut)
	}
	written := readText(t, expectations)
	if !strings.Contains(written, "id: "+flaky+"\n    outcome: failed\n    why: status 500, want 200") {
		t.Errorf("the starting file lacks the failure with the run's reason:\n%s", written)
	}
	if code, _, errOut := runTCK("expect", "--from", failing, "--out", expectations, "--features", features); code != exitUsage || !strings.Contains(errOut, "never overwritten") {
		t.Errorf("expect --out over an existing file: exit %d %s", code, errOut)
	}

	again := filepath.Join(dir, "again")
	if code, out, errOut := runTCK("run", "--target", file, "--features", features, "--reports", again, "--expect", expectations); code != exitOK ||
		!strings.Contains(out, "expectations met") {
		t.Errorf("the failing run with its expectations: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if !strings.Contains(readText(t, filepath.Join(again, "conformance-report.yaml")), "expectations:\n  file: "+expectations+"\n  result: met") {
		t.Errorf("the report does not say the expectations are met")
	}

	// Without the entry: the failure is unexpected.
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("expected: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runTCK("run", "--target", file, "--features", features, "--reports", again, "--expect", empty); code != exitFailed ||
		!strings.Contains(out, "unexpected (no entry expects them; listed above):\n      failed "+flaky) {
		t.Errorf("an unexpected failure: exit %d, want 1 naming it\n%s", code, out)
	}

	// The scenario passes again: the entry did not happen.
	broken.Store(false)
	if code, out, _ := runTCK("run", "--target", file, "--features", features, "--reports", again, "--expect", expectations); code != exitFailed ||
		!strings.Contains(out, "expected but passed: "+flaky+" (line 7: expected failed, was passed): remove the entry") {
		t.Errorf("a stale entry: exit %d, want 1 naming it\n%s", code, out)
	}
}

// A bad expectations file is a usage error naming its line, before anything runs; so is tck diff of a folder
// without reports or of a report of another suite.
func TestBadExpectationsAndBadDiffsAreUsageErrors(t *testing.T) {
	features, file, _ := tinySuite(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("expected:\n  - id: config/tiny/the-flaky-path-answer\n    outcome: failed\n    why: typo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := filepath.Join(dir, "reports")
	code, out, errOut := runTCK("run", "--target", file, "--features", features, "--reports", reports, "--expect", bad)
	if code != exitUsage || !strings.Contains(errOut, bad+":2: \"config/tiny/the-flaky-path-answer\" is no stable ID of the suite: did you mean "+flaky+"?") {
		t.Errorf("a bad expectations file: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "Running") {
		t.Errorf("scenarios ran before the expectations file was checked:\n%s", out)
	}
	if code, _, errOut := runTCK("expect", "--check", bad, "--features", features); code != exitUsage || !strings.Contains(errOut, bad+":2:") {
		t.Errorf("expect --check: exit %d %s", code, errOut)
	}

	empty := t.TempDir()
	if code, _, errOut := runTCK("diff", empty, empty); code != exitUsage || !strings.Contains(errOut, "OLD: "+empty+" holds no conformance-report.yaml: give the --reports folder of a tck run") {
		t.Errorf("diff of a folder without reports: exit %d %s", code, errOut)
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("apiVersion: gateway.networking.k8s.io/v1\nkind: ConformanceReport\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runTCK("diff", other, other); code != exitUsage || !strings.Contains(errOut, "not a conformance report of fortune-tck (apiVersion \"gateway.networking.k8s.io/v1\"") {
		t.Errorf("diff of another suite's reports: exit %d %s", code, errOut)
	}
	if code, _, _ := runTCK("diff", other); code != exitUsage {
		t.Errorf("diff of one run: exit %d", code)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
