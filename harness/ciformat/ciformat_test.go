package ciformat

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

func testRun() Run {
	huge := "status 500, want 200\n" + strings.Repeat("é<&\x00", 40000)
	return Run{Name: "fortune-tck", Elapsed: 3 * time.Second, Features: []Feature{{URI: "auth/tokens.feature", Name: "Tokens", Scenarios: []Scenario{
		{ID: "auth/tokens/ok", Outcome: features.Passed, Steps: []Step{{Status: "passed", Duration: time.Second}}},
		{ID: "auth/tokens/huge", Outcome: features.Failed, Reason: huge, Steps: []Step{{Status: "failed", Error: huge}}},
		{ID: "auth/tokens/known", Outcome: features.Blocked, Reason: "no check_token", Expected: "profile:check-token, line 2 of e.yaml"},
		{ID: "auth/tokens/left", Outcome: features.Skipped, Reason: "left out by --tags"},
	}}}}
}

// An expected failure is reported as skipped with what expected it, as pytest reports an expected failure; a
// huge message is cut with its size, and what XML cannot hold is replaced, so the file stays valid.
func TestJUnitReportsExpectedFailuresAsSkippedAndCutsHugeMessages(t *testing.T) {
	data, err := JUnit(testRun())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"skipped"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 0 || doc.Skipped != 2 {
		t.Errorf("counts %+v", doc)
	}
	for _, c := range doc.Cases {
		switch c.Name {
		case "auth/tokens/huge":
			if c.Failure == nil || c.Failure.Message != "status 500, want 200" || len(c.Failure.Text) > 2*MaxMessage || !strings.Contains(c.Failure.Text, "bytes in all)") {
				t.Errorf("the huge failure: message %q, %d bytes of text", c.Failure.Message, len(c.Failure.Text))
			}
		case "auth/tokens/known":
			if c.Skipped == nil || c.Skipped.Type != "expected blocked" || c.Skipped.Message != "blocked as expected (profile:check-token, line 2 of e.yaml): no check_token" {
				t.Errorf("the expected block: %+v", c.Skipped)
			}
		}
	}
	if len(data) > 3*MaxMessage {
		t.Errorf("junit.xml is %d bytes", len(data))
	}
}

// The Markdown summary names what fails the run by stable ID, puts the target's text in code spans, and folds
// the expected failures away.
func TestTheMarkdownSummaryNamesWhatFailsTheRun(t *testing.T) {
	r := testRun()
	r.Features[0].Scenarios[1].Reason = "status 500 ``![x](http://evil.invalid/)``\nmore"
	rep := report.ConformanceReport{SuiteVersion: "v0.1.0", Implementation: report.Implementation{Project: "op", Version: "1"},
		Profiles: []report.Profile{{Name: "oauth", Core: report.Result{Result: report.Failure}, Summary: "core: 1 passed | 1 failed"}},
		Expectations: &report.Expectations{File: "e.yaml", Result: report.ExpectationsNotMet,
			Expected:     []report.ExpectedTest{{Name: "auth/tokens/known", Outcome: features.Blocked, By: "profile:check-token", Line: 2}},
			Unexpected:   []report.UnexpectedTest{{Name: "auth/tokens/huge", Outcome: features.Failed}},
			DidNotHappen: []report.StaleExpectation{{ID: "auth/tokens/ok", Expected: features.Failed, Actual: "passed", Line: 7}}}}
	md := Markdown(rep, r, []byte("<svg/>"))
	for _, w := range []string{
		"![fortune-tck badge](data:image/svg+xml;base64,PHN2Zy8+)",
		"## fortune-tck v0.1.0: 1/3 passed against `op 1`",
		"**Failed**: 1 failed or blocked scenarios no entry of `e.yaml` expects, 1 entries that did not happen.",
		"| oauth | failure | – | core: 1 passed \\| 1 failed |",
		"- **failed** `auth/tokens/huge`: ``` status 500 ``![x](http://evil.invalid/)`` ```",
		"- `auth/tokens/ok` (line 7): expected failed, was passed",
		"<details><summary>Expected, still failing (1)</summary>",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("the summary lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "auth/tokens/known`:") {
		t.Errorf("an expected failure is listed with those that fail the run:\n%s", md)
	}
}
