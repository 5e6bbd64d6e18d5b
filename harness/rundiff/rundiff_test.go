package rundiff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

func rep(version string, core report.Result, ext *report.Extended) report.ConformanceReport {
	return report.ConformanceReport{APIVersion: report.APIVersion, Kind: report.KindName, SuiteVersion: version,
		Implementation: report.Implementation{Project: "op", Version: "1"},
		Profiles:       []report.Profile{{Name: "oauth", Core: core, Extended: ext}}}
}

// Every kind of change is found by stable ID, and only what the old run verified and the new one does not is a
// regression.
func TestCompareFindsEachChangeAndOnlyRegressionsCount(t *testing.T) {
	old := rep("v0.1.0", report.Result{Result: report.Failure,
		PassedTests: []string{"a/pass-then-fail", "a/pass-then-unsupported", "a/same", "a/pass-then-gone"},
		FailedTests: []string{"a/fail-then-pass", "a/fail-then-block"}},
		&report.Extended{SupportedFeatures: []string{"auth.revocation"}, UnsupportedFeatures: []string{"auth.scope-choice"},
			Result: report.Result{UnsupportedTests: []string{"a/unsupported-then-pass"}}})
	cur := rep("v0.2.0", report.Result{Result: report.Failure,
		PassedTests:  []string{"a/fail-then-pass", "a/same", "a/unsupported-then-pass", "a/new-pass"},
		FailedTests:  []string{"a/pass-then-fail", "a/new-fail"},
		BlockedTests: []report.BlockedTest{{Name: "a/fail-then-block", Cause: "x"}}},
		&report.Extended{SupportedFeatures: []string{"auth.scope-choice"}, FailedFeatures: []string{"auth.revocation"},
			Result: report.Result{UnsupportedTests: []string{"a/pass-then-unsupported"}}})
	d, err := Compare("old", old, "new", cur)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Change{}
	for _, c := range d.Changes {
		got[c.ID] = c
	}
	for id, want := range map[string]Change{
		"a/pass-then-fail":        {Category: NewlyFailing, Old: "passed", New: "failed", Regression: true},
		"a/new-fail":              {Category: NewlyFailing, New: "failed", Regression: true},
		"a/pass-then-unsupported": {Category: NewlyNotSupported, Old: "passed", New: "not supported", Regression: true},
		"auth.revocation":         {Category: CapabilityLost, Old: "supported", New: "failed", Regression: true},
		"a/fail-then-pass":        {Category: NewlyPassing, Old: "failed", New: "passed"},
		"a/unsupported-then-pass": {Category: NewlyPassing, Old: "not supported", New: "passed"},
		"auth.scope-choice":       {Category: CapabilityGained, Old: "not supported", New: "supported"},
		"a/fail-then-block":       {Category: OutcomeChanged, Old: "failed", New: "blocked"},
		"a/new-pass":              {Category: OnlyNew, New: "passed"},
		"a/pass-then-gone":        {Category: OnlyOld, Old: "passed"},
	} {
		want.ID = id
		if got[id] != want {
			t.Errorf("%s: %+v, want %+v", id, got[id], want)
		}
		delete(got, id)
	}
	if _, ok := got["a/same"]; ok {
		t.Error("an unchanged scenario is listed")
	}
	if len(got) != 0 {
		t.Errorf("more changes than expected: %+v", got)
	}
	if d.Regressions != 4 {
		t.Errorf("%d regressions, want 4", d.Regressions)
	}
	text := d.Text()
	for _, w := range []string{"The suite versions differ (v0.1.0, then v0.2.0)", "newly failing or blocked (2):\n! a/new-fail (failed)\n! a/pass-then-fail (passed -> failed)",
		"4 regressions."} {
		if !strings.Contains(text, w) {
			t.Errorf("the text lacks %q:\n%s", w, text)
		}
	}
	md := d.Markdown()
	if !strings.Contains(md, "### fortune-tck: 4 regressions") || !strings.Contains(md, "| ❌ | `a/pass-then-fail` | passed | failed |") {
		t.Errorf("markdown:\n%s", md)
	}
	var back Diff
	out, err := Render(d, "json")
	if err != nil || json.Unmarshal([]byte(out), &back) != nil || back.Regressions != 4 || len(back.Changes) != len(d.Changes) {
		t.Errorf("json: %v\n%s", err, out)
	}
	if _, err := Render(d, "yaml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// Two runs of one target that differ in nothing have no regression; runs that share no profile cannot be
// compared.
func TestSameRunsAndUnrelatedRuns(t *testing.T) {
	r := rep("v0.1.0", report.Result{Result: report.Success, PassedTests: []string{"a/x"}}, nil)
	d, err := Compare("old", r, "new", r)
	if err != nil || d.Regressions != 0 || len(d.Changes) != 0 || !strings.Contains(d.Text(), "No change.\n\nNo regression.") {
		t.Errorf("%v %+v\n%s", err, d, d.Text())
	}
	other := r
	other.Profiles = []report.Profile{{Name: "config"}}
	if _, err := Compare("old", r, "new", other); err == nil || !strings.Contains(err.Error(), "share no profile (old tested oauth; new tested config)") {
		t.Errorf("err = %v", err)
	}
}
