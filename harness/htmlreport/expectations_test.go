package htmlreport

import (
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// A run judged against an expectations file: each scenario it names is marked "expected, still failing",
// "unexpected" or "expected but passed" with why, and the page says whether the expectations are met and lists
// the entries that did not happen.
func TestThePageMarksExpectedUnexpectedAndStaleScenarios(t *testing.T) {
	cat, secs := testCatalog(t)
	rep := testReport(report.Implementation{Project: "op"})
	rep.Expectations = &report.Expectations{File: "examples/op/expectations.yaml", Result: report.ExpectationsNotMet,
		Expected:     []report.ExpectedTest{{Name: idBlocked, Outcome: features.Blocked, By: "profile:fortune", Line: 3}},
		Unexpected:   []report.UnexpectedTest{{Name: idFailed, Outcome: features.Failed, Reason: "status 200"}},
		DidNotHappen: []report.StaleExpectation{{ID: idPassed, Expected: features.Failed, Actual: "passed", Line: 9, Why: "was broken " + evil}},
		NotJudged:    []string{idSkippedA}}
	in, err := Build(rep, cuke(t, evilExchanges()), cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	page, doc := render(t, in)
	for id, want := range map[string]string{
		idBlocked: "expected, still failing",
		idFailed:  "unexpected",
		idPassed:  "expected but passed",
	} {
		n := byID(doc, id)
		if n == nil {
			t.Fatalf("no scenario %s", id)
		}
		if got := text(n); !strings.Contains(got, want) {
			t.Errorf("%s is not marked %q:\n%s", id, want, got)
		}
	}
	if got := text(byID(doc, idBlocked)); !strings.Contains(got, "expected blocked by profile:fortune (line 3 of examples/op/expectations.yaml)") {
		t.Errorf("the expected scenario does not say what expected it:\n%s", got)
	}
	if got := text(byID(doc, idSkippedB)); strings.Contains(got, "expected") {
		t.Errorf("a scenario no entry names is marked:\n%s", got)
	}
	section := byID(doc, "expectations")
	if section == nil {
		t.Fatal("no expectations section")
	}
	for _, want := range []string{"Expected but did not happen", idPassed + " (line 9): expected failed, was passed — remove the entry",
		"not judged (their scenarios did not run): " + idSkippedA} {
		if !strings.Contains(text(section), want) {
			t.Errorf("the expectations section lacks %q:\n%s", want, text(section))
		}
	}
	if !strings.Contains(string(page), ">not met</span> examples/op/expectations.yaml: 1 expected, still failing · 1 unexpected · 1 expected but did not happen") {
		t.Errorf("the header does not say the expectations are not met")
	}
	if strings.Contains(string(page), "<script>alert") {
		t.Error("the why of an entry was not escaped")
	}

	// Without an expectations file the page has no such marks.
	in, err = Build(testReport(report.Implementation{Project: "op"}), cuke(t, evilExchanges()), cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	if page, _ := render(t, in); strings.Contains(string(page), `class="exp `) || strings.Contains(string(page), `id="expectations"`) {
		t.Error("a page without expectations shows expectation marks")
	}
}
