package badge

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

func reportOf(results ...report.Verdict) report.ConformanceReport {
	rep := report.ConformanceReport{SuiteVersion: "v0.1.0"}
	for i, r := range results {
		rep.Profiles = append(rep.Profiles, report.Profile{Name: []features.ProfileName{"oauth", "check-token", "config"}[i], Core: report.Result{Result: r}})
	}
	return rep
}

// The badge's colour is the run's result: red on a failure nobody expected, green when the run passes or meets
// its expectations, yellow when scenarios were only blocked; its title gives every profile's result.
func TestTheBadgeSaysTheResult(t *testing.T) {
	failing := reportOf(report.Success, report.Failure)
	for _, c := range []struct {
		name  string
		rep   report.ConformanceReport
		color string
		msg   string
	}{
		{"a failure", failing, Red, "15/25 passed"},
		{"all passed", reportOf(report.Success, report.Success), Green, "15/25 passed"},
		{"blocked only", reportOf(report.Success, report.BlockedVerdict), Yellow, "15/25 passed"},
		{"expected", withExpectations(failing, true), Green, "15/25 passed, 1 as expected"},
		{"not met", withExpectations(failing, false), Red, "15/25 passed, 2 unexpected"},
	} {
		b := Of(c.rep, 15, 25)
		if b.Color != c.color || b.Message != c.msg || b.Label != "fortune-tck v0.1.0" {
			t.Errorf("%s: %+v, want %s %q", c.name, b, c.color, c.msg)
		}
	}
	b := Of(failing, 15, 25)
	if b.Title != "fortune-tck v0.1.0: 15/25 passed (oauth: success, check-token: failure)" {
		t.Errorf("title %q", b.Title)
	}
	b.Label = `a <b> & "c"` + "\x01"
	svg, err := SVG(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !strings.Contains(string(svg), "a &lt;b&gt; &amp; &quot;c&quot;") {
		t.Errorf("the badge is not XML with its text escaped (%v):\n%s", err, svg)
	}
}

func withExpectations(rep report.ConformanceReport, met bool) report.ConformanceReport {
	e := &report.Expectations{Expected: []report.ExpectedTest{{Name: "x"}}}
	if !met {
		e.Unexpected = []report.UnexpectedTest{{Name: "y"}}
		e.DidNotHappen = []report.StaleExpectation{{ID: "z"}}
	}
	rep.Expectations = e
	return rep
}
