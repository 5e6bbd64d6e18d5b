package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/matrix"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// writeRun writes the files of a run of the fortune area in which every scenario passed but the first, which
// failed, and returns the folder and the failed scenario's ID.
func writeRun(t *testing.T) (string, string) {
	t.Helper()
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	res := report.NewResults()
	var failed string
	type step struct {
		Keyword string `json:"keyword"`
		Name    string `json:"name"`
		Result  struct {
			Status string `json:"status"`
			Error  string `json:"error_message,omitempty"`
		} `json:"result"`
	}
	type element struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Line  int    `json:"line"`
		Type  string `json:"type"`
		Steps []step `json:"steps"`
	}
	feature := map[string]any{"uri": "fortune/fortune.feature", "name": "Fortune service", "keyword": "Feature"}
	var elements []element
	for _, s := range cat.Scenarios {
		if s.Area != features.AreaFortune {
			continue
		}
		st := step{Keyword: "Then ", Name: "the answer is a fortune"}
		st.Result.Status = "passed"
		if failed == "" {
			failed = s.ID()
			st.Result.Status, st.Result.Error = "failed", "status 401, want 200 and a fortune <script>alert(1)</script>"
			res.Set(s, report.Failed, st.Result.Error)
		} else {
			res.Set(s, report.Passed, "")
		}
		elements = append(elements, element{ID: "godog;" + s.Name, Name: s.Name, Line: s.Line, Type: "scenario", Steps: []step{st}})
	}
	feature["elements"] = elements
	rep := report.Build(report.Implementation{Project: "example", Version: "1.0"}, "v0.1.0", time.Now(), cat,
		[]features.ProfileName{features.ProfileFortune}, nil, res)
	dir := t.TempDir()
	if err := report.Write(filepath.Join(dir, "conformance-report.yaml"), rep); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal([]any{feature})
	if err := os.WriteFile(filepath.Join(dir, "cucumber.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, failed
}

func TestReportRendersARunsFiles(t *testing.T) {
	dir, failed := writeRun(t)
	code, out, errOut := runTCK("report", "--reports", dir)
	page := filepath.Join(dir, "index.html")
	if code != exitOK || !strings.Contains(out, page) {
		t.Fatalf("tck report: %d %s %s", code, out, errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, w := range []string{`id="` + failed + `"`, `data-outcome="failed"`, "&lt;script&gt;alert(1)&lt;/script&gt;", `id="profile-fortune"`, `id="coverage"`} {
		if !strings.Contains(s, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(s, "<script>alert") {
		t.Error("the failure message reached the page as markup")
	}
	other := filepath.Join(t.TempDir(), "sub", "r.html")
	if code, _, errOut := runTCK("report", "--reports", dir, "--out", other); code != exitOK {
		t.Errorf("--out: %d %s", code, errOut)
	} else if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
	if code, out, _ := runTCK("report", "--reports", dir, "--out", "-"); code != exitOK || !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Errorf("--out -: %d %.60s", code, out)
	}
}

// A folder whose files are not a run's is an error (exit 2) that names the file.
func TestReportRefusesFilesThatAreNotARunsWithTheirName(t *testing.T) {
	dir, _ := writeRun(t)
	cucumber := filepath.Join(dir, "cucumber.json")
	for name, c := range map[string]struct{ content, want string }{
		"not JSON":      {"<testsuites/>", cucumber + ": not JSON"},
		"another tool":  {`{"stats": {"tests": 3}, "tests": []}`, cucumber + ": not a cucumber JSON report"},
		"another suite": {`[{"uri": "login.feature", "name": "Login", "elements": [{"name": "x", "line": 1, "type": "scenario"}]}]`, cucumber + ": none of its 1 scenarios"},
	} {
		if err := os.WriteFile(cucumber, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runTCK("report", "--reports", dir)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: %d %s", name, code, errOut)
		}
	}
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "conformance-report.yaml"), []byte("kind: ConformanceReport\nprofiles:\n  - name: fortune\n    core: {result: partial}\n"), 0o644)
	os.WriteFile(filepath.Join(empty, "cucumber.json"), []byte("[]"), 0o644)
	if code, _, errOut := runTCK("report", "--reports", empty); code != exitUsage || !strings.Contains(errOut, "conformance-report.yaml: the report holds no scenario") {
		t.Errorf("no scenarios: %d %s", code, errOut)
	}
	if code, _, errOut := runTCK("report", "--reports", filepath.Join(empty, "missing")); code != exitUsage || !strings.Contains(errOut, "missing/conformance-report.yaml") {
		t.Errorf("no folder: %d %s", code, errOut)
	}
	if code, _, _ := runTCK("report", "extra"); code != exitUsage {
		t.Errorf("an argument: %d", code)
	}
}

func TestDocsRenderTheFeatures(t *testing.T) {
	dir, failed := writeRun(t)
	out := filepath.Join(t.TempDir(), "spec.html")
	code, _, errOut := runTCK("docs", "--out", out)
	if code != exitOK {
		t.Fatalf("tck docs: %d %s", code, errOut)
	}
	data, _ := os.ReadFile(out)
	for _, w := range []string{`id="` + failed + `"`, "Feature: Fortune service", "config.flat-formats", `id="spec-4.4"`} {
		if !strings.Contains(string(data), w) {
			t.Errorf("the spec page lacks %q", w)
		}
	}
	if strings.Contains(string(data), `class="badge o-failed"`) {
		t.Error("an outcome without a run")
	}
	code, _, errOut = runTCK("docs", "--report", dir, "--out", out)
	if code != exitOK {
		t.Fatalf("tck docs --report: %d %s", code, errOut)
	}
	data, _ = os.ReadFile(out)
	if !strings.Contains(string(data), `class="badge o-failed"`) || !strings.Contains(string(data), `class="badge o-not-under-test"`) {
		t.Error("the spec page shows no outcomes of the run")
	}
}

func TestMatrixWritesAnHTMLPage(t *testing.T) {
	dir, _ := writeRun(t)
	page := filepath.Join(t.TempDir(), "matrix.html")
	code, out, errOut := runTCK("matrix", "--html", page, dir)
	if code != exitOK || !strings.Contains(out, "| implementation | fortune |") {
		t.Fatalf("tck matrix: %d %s %s", code, out, errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<!DOCTYPE html>", "example", "1 failed", "differences without an entry: fortune/fortune/"} {
		if !strings.Contains(string(data), w) {
			t.Errorf("the matrix page lacks %q", w)
		}
	}
}

// The interop reports commit their YAML, JUnit and cucumber files, not their HTML pages: tck report makes each
// page again from the committed files.
func TestTheCommittedInteropReportsRenderAsPages(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "reports", "interop", "*", "conformance-report.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed interop report (%v)", err)
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		page := filepath.Join(t.TempDir(), "index.html")
		if code, _, errOut := runTCK("report", "--reports", dir, "--out", page); code != exitOK {
			t.Errorf("tck report --reports %s: exit %d: %s", dir, code, errOut)
			continue
		}
		row, err := matrix.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), row.Report.Implementation.Project) {
			t.Errorf("the page of %s does not name %q", dir, row.Report.Implementation.Project)
		}
	}
}
