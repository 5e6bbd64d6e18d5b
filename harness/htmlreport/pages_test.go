package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

// The spec page: every feature with its description, the sections and capabilities it states with their
// summaries, the steps, and each scenario's outcome from a run; an anchor per scenario ID.
func TestDocsShowTheFeaturesAsASpec(t *testing.T) {
	cat, secs := testCatalog(t)
	run := testInput(t)
	d, err := BuildDocs(testFeatures, cat, secs, &run)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RenderDocs(&buf, d); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := text(doc)
	for _, w := range []string{"Feature: Fortune service", "The fortune service answers a fortune.", "Second paragraph of the description.",
		"Fortune service returns a fortune <b>to the bearer</b>", "needs the capability fortune.rfc6750-errors",
		"refusals are 401 or 403 with a Bearer challenge", "Background: every scenario starts with",
		`the fortune service is called at "<path>" with the access token`, "Area greeting", "tag @left-out"} {
		if !strings.Contains(s, w) {
			t.Errorf("the spec page does not say %q", w)
		}
	}
	for _, id := range []string{idPassed, idFailed, idSkippedA, idSkippedB, idGreeting, "feature-fortune/fortune", "spec-1.2", "capability-fortune.rfc6750-errors"} {
		if byID(doc, id) == nil {
			t.Errorf("no anchor %s", id)
		}
	}
	if n := byID(doc, idFailed); n == nil || !strings.Contains(text(n), "failed") {
		t.Error("the failed scenario shows no outcome")
	}
	if d.Totals[Failed] != 1 || d.Totals[NotUnderTest] != 1 {
		t.Errorf("totals %v", d.Totals)
	}
	// Without a run, no outcomes.
	d, err = BuildDocs(testFeatures, cat, secs, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := RenderDocs(&buf, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `class="badge`) {
		t.Error("outcomes without a run")
	}
}

// The matrix page escapes what reports and notes say, and names every profile.
func TestMatrixPage(t *testing.T) {
	rep := testReport(report.Implementation{Project: "evil " + evil, URL: "javascript:alert(1)", Version: "1"})
	m := Matrix{Profiles: []string{"fortune", "config"}, Rows: []MatrixRow{{Implementation: rep.Implementation, Date: rep.Date,
		Cells: []MatrixCell{MatrixCellOf(rep.Profiles[0]), {}}, Notes: []MatrixNote{{About: []string{idFailed}, Why: "because " + evil}},
		Unexplained: []string{idBlocked}}}}
	var buf bytes.Buffer
	if err := RenderMatrix(&buf, m); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("<script>window")) || bytes.Contains(buf.Bytes(), []byte("javascript:")) || !utf8.Valid(buf.Bytes()) {
		t.Error("a hostile string reached the page")
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := text(doc)
	for _, w := range []string{"because <script>", "not under test", "differences without an entry: " + idBlocked, "fortune.rfc6750-errors", "1 failed"} {
		if !strings.Contains(s, w) {
			t.Errorf("the matrix does not say %q", w)
		}
	}
}

// WriteDir, as the harness calls it after a run, writes dir/index.html; without cucumber.json (a run in which
// godog ran nothing) the page shows the report alone.
func TestWriteDir(t *testing.T) {
	cat, secs := testCatalog(t)
	dir := t.TempDir()
	if err := report.Write(filepath.Join(dir, "conformance-report.yaml"), testReport(report.Implementation{Project: "p"})); err != nil {
		t.Fatal(err)
	}
	path, err := WriteDir(dir, cat, secs)
	if err != nil || path != filepath.Join(dir, "index.html") {
		t.Fatalf("%s %v", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(`id="`+idFailed+`"`)) || !bytes.Contains(data, []byte("cucumber.json has no message")) {
		t.Errorf("the page without cucumber.json: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cucumber.json"), cuke(t, evilExchanges()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDir(dir, cat, secs); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("HTTP exchanges (2)")) {
		t.Error("the page does not show the exchanges of cucumber.json")
	}
}

// Past MaxBodies of bodies on one page, each further body is cut short, failed scenarios' first.
func TestThePageHoldsABoundedAmountOfBodies(t *testing.T) {
	big := strings.Repeat("x", MaxBody)
	var scenarios []Scenario
	for range 2 * MaxBodies / MaxBody / 10 {
		s := Scenario{}
		for range 10 {
			s.Exchanges = append(s.Exchanges, Exchange{ResponseBody: body(big, 0)})
		}
		scenarios = append(scenarios, s)
	}
	if !budget(scenarios) {
		t.Fatal("nothing was cut")
	}
	total := 0
	for _, s := range scenarios {
		for _, x := range s.Exchanges {
			total += len(x.ResponseBody.Text)
		}
	}
	if total > MaxBodies+MaxBodies/MaxBody*MaxBodyOver {
		t.Errorf("%d bytes of bodies", total)
	}
	first, last := scenarios[0].Exchanges[0].ResponseBody, scenarios[len(scenarios)-1].Exchanges[9].ResponseBody
	if len(first.Text) != MaxBody || len(last.Text) != MaxBodyOver || !strings.Contains(last.Note, "the page holds 8 MiB of bodies at most") {
		t.Errorf("first %d, last %d %q", len(first.Text), len(last.Text), last.Note)
	}
}
