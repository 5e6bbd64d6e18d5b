package conformance

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fortune-tck/fortune-tck/internal/gittest"
	"github.com/fortune-tck/fortune-tck/target"
)

// Two scenarios of the configuration server: the root answers 200; /flaky answers 500 when FLAKY_BROKEN is set.
var tiny = fstest.MapFS{"config/tiny.feature": {Data: []byte(`Feature: Tiny

  Scenario: The root answers
    When I request "/" from the configuration server
    Then the answer is 200

  Scenario: The flaky path answers
    When I request "/flaky" from the configuration server
    Then the answer is 200
`)}}

// child runs the suite as an implementer's test would, when the parent test asks for it (CONFORMANCE_CHILD).
func TestChild(t *testing.T) {
	if os.Getenv("CONFORMANCE_CHILD") == "" {
		t.Skip("run by the other tests of this file, in a process of their own")
	}
	broken := os.Getenv("FLAKY_BROKEN") != ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/flaky" && broken {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	Run(t, Options{Features: tiny, ExpectFile: os.Getenv("EXPECT_FILE"), Target: &target.Target{
		Implementation: target.Implementation{Project: "tiny"},
		Services: target.Services{ConfigServer: &target.ConfigServer{URL: srv.URL,
			Repository: target.Repository{URI: os.Getenv("REPOSITORY")}}}}})
}

// runChild runs TestChild in a process of its own and returns whether it passed, and its output.
func runChild(t *testing.T, env ...string) (bool, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{"CONFORMANCE_CHILD=1", "REPOSITORY=" + gittest.BareRepository(t)}, env...)...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return err == nil, string(out)
}

const flaky = "TestChild/config/tiny/the-flaky-path-answers"

// Each scenario is a subtest with the suite's outcome; a failure fails its subtest and the test, unless the
// expectations file expects it; an entry that did not happen fails the test.
func TestEachScenarioIsASubtestJudgedByTheExpectations(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed, and CI is set")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
	passed, out := runChild(t)
	if !passed || !strings.Contains(out, "--- PASS: "+flaky) || !strings.Contains(out, "--- PASS: TestChild/config/tiny/the-root-answers") {
		t.Errorf("a passing run: passed=%v\n%s", passed, out)
	}
	passed, out = runChild(t, "FLAKY_BROKEN=1")
	if passed || !strings.Contains(out, "--- FAIL: "+flaky) || !strings.Contains(out, "failed: status 500, want 200") ||
		!strings.Contains(out, "--- PASS: TestChild/config/tiny/the-root-answers") {
		t.Errorf("an unexpected failure: passed=%v\n%s", passed, out)
	}
	expectations := filepath.Join(t.TempDir(), "expectations.yaml")
	entry := "expected:\n  - id: config/tiny/the-flaky-path-answers\n    outcome: failed\n    why: known\n"
	if err := os.WriteFile(expectations, []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	passed, out = runChild(t, "FLAKY_BROKEN=1", "EXPECT_FILE="+expectations)
	if !passed || !strings.Contains(out, "--- PASS: "+flaky) || !strings.Contains(out, "failed as expected by config/tiny/the-flaky-path-answers, line 2 of") {
		t.Errorf("an expected failure: passed=%v\n%s", passed, out)
	}
	passed, out = runChild(t, "EXPECT_FILE="+expectations)
	if passed || !strings.Contains(out, expectations+":2: config/tiny/the-flaky-path-answers was expected failed, and was passed: remove the entry") {
		t.Errorf("a stale entry: passed=%v\n%s", passed, out)
	}
	if err := os.WriteFile(expectations, []byte("expected:\n  - id: nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	passed, out = runChild(t, "EXPECT_FILE="+expectations)
	if passed || !strings.Contains(out, expectations+`:2: "nope" is no stable ID of the suite`) || strings.Contains(out, "=== RUN   TestChild/") {
		t.Errorf("a bad expectations file: passed=%v\n%s", passed, out)
	}
}

func TestTheTargetIsCheckedAsATargetFileIs(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "no target: give Target or TargetFile"},
		{Options{Target: &target.Target{}, TargetFile: "x.yaml"}, "not both"},
		{Options{TargetFile: filepath.Join(t.TempDir(), "none.yaml")}, "no such file"},
		{Options{Target: &target.Target{Services: target.Services{ConfigServer: &target.ConfigServer{URL: "nope"}}}}, "services.configServer.url"},
	} {
		if _, err := loadTarget(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.opts, err, c.want)
		}
	}
}
