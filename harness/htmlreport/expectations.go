package htmlreport

import (
	"fmt"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// What the page says of a scenario judged against an expectations file (tck run --expect).
const (
	ExpectedStillFailing = "expected, still failing"
	UnexpectedOutcome    = "unexpected"
	ExpectedButPassed    = "expected but passed"
)

// Expectations is the run judged against its expectations file, as the page shows it.
type Expectations struct {
	File                 string
	Met                  bool
	Expected, Unexpected int
	// DidNotHappen are the entries the run contradicts, each said in words.
	DidNotHappen []string
	NotJudged    []string
}

// withExpectations marks each scenario the report's expectations name, and sums them up for the page.
func withExpectations(in *Input, e *report.Expectations) {
	if e == nil {
		return
	}
	in.Expectations = &Expectations{File: cleanText(e.File, 1000), Met: e.Met(), Expected: len(e.Expected), Unexpected: len(e.Unexpected)}
	marks := map[string][2]string{}
	for _, x := range e.Expected {
		marks[x.Name] = [2]string{ExpectedStillFailing, fmt.Sprintf("expected %s by %s (line %d of %s)", OutcomeLabel(x.Outcome), x.By, x.Line, e.File)}
	}
	for _, u := range e.Unexpected {
		why := "no entry of " + e.File + " expects it"
		if u.Expected != "" {
			why = fmt.Sprintf("%s expects it %s", e.File, OutcomeLabel(u.Expected))
		}
		marks[u.Name] = [2]string{UnexpectedOutcome, why}
	}
	for _, s := range e.DidNotHappen {
		line := fmt.Sprintf("%s (line %d): expected %s, was %s — remove the entry", s.ID, s.Line, OutcomeLabel(s.Expected), s.Actual)
		in.Expectations.DidNotHappen = append(in.Expectations.DidNotHappen, cleanText(line, MaxText))
		if s.Actual == string(features.Passed) {
			marks[s.ID] = [2]string{ExpectedButPassed, fmt.Sprintf("line %d of %s expects it %s: %s", s.Line, e.File, OutcomeLabel(s.Expected), s.Why)}
		}
	}
	for _, id := range e.NotJudged {
		in.Expectations.NotJudged = append(in.Expectations.NotJudged, cleanText(id, 1000))
	}
	for i := range in.Scenarios {
		if m, ok := marks[in.Scenarios[i].ID]; ok {
			in.Scenarios[i].Expectation, in.Scenarios[i].ExpectationWhy = m[0], cleanText(m[1], MaxText)
		}
	}
}

// expectationClass is an expectation mark as a CSS class.
func expectationClass(mark string) string {
	switch mark {
	case ExpectedStillFailing:
		return "expected"
	case UnexpectedOutcome:
		return "unexpected"
	case ExpectedButPassed:
		return "stale"
	}
	return ""
}
