package expect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Run is what a run gave, as Judge reads it.
type Run struct {
	Report report.ConformanceReport
	// Outcomes are the scenarios' outcomes by stable ID (report.ConformanceReport.Outcomes reads them back); a
	// scenario missing from it, or skipped, or not under test, did not run.
	Outcomes map[string]features.Outcome
	// Reasons are the failure messages and block causes by stable ID.
	Reasons map[string]string
}

// ran tells whether a scenario came to a verdict in the run (passed, failed, blocked, or not supported).
func (r Run) ran(id string) bool {
	switch r.Outcomes[id] {
	case features.Passed, features.Failed, features.Blocked, features.Unsupported:
		return true
	}
	return false
}

// Judge judges a run against the file: every failed or blocked scenario is expected by an entry of its own, of
// one of its capabilities or of its profile with that outcome, or it is unexpected; every entry about what ran
// must have happened. cat gives each scenario's profile and capabilities.
func Judge(f *File, cat *catalog.Catalog, run Run) *report.Expectations {
	j := &report.Expectations{File: f.Path}
	byID := map[string]*Entry{}
	for i := range f.Entries {
		for _, id := range f.Entries[i].IDs {
			byID[id] = &f.Entries[i]
		}
	}
	for _, s := range cat.Scenarios {
		o := run.Outcomes[s.ID()]
		if o != features.Failed && o != features.Blocked {
			continue
		}
		by, line, other := coveredBy(s, o, byID)
		switch {
		case by != "":
			j.Expected = append(j.Expected, report.ExpectedTest{Name: s.ID(), Outcome: o, By: by, Line: line})
		default:
			j.Unexpected = append(j.Unexpected, report.UnexpectedTest{Name: s.ID(), Outcome: o,
				Reason: run.Reasons[s.ID()], Expected: other})
		}
	}
	for _, e := range f.Entries {
		for _, id := range e.IDs {
			happened, judged, actual := happenedOf(id, e.Outcome, cat, run)
			switch {
			case !judged:
				j.NotJudged = append(j.NotJudged, id)
			case !happened && !contradictedAlready(id, e.Outcome, run):
				j.DidNotHappen = append(j.DidNotHappen, report.StaleExpectation{ID: id, Expected: e.Outcome,
					Actual: actual, Line: e.Lines[id], Why: e.Why})
			}
		}
	}
	j.Result = report.ExpectationsMet
	if !j.Met() {
		j.Result = report.ExpectationsNotMet
	}
	return j
}

// coveredBy finds the entry that expects a scenario's outcome: its own, then a capability's, then its profile's.
// It returns the entry's ID and line, or, when the scenario's own entry names another outcome, that outcome.
func coveredBy(s catalog.Scenario, o features.Outcome, byID map[string]*Entry) (by string, line int, other features.Outcome) {
	if e := byID[s.ID()]; e != nil {
		if e.Outcome == o {
			return s.ID(), e.Lines[s.ID()], ""
		}
		other = e.Outcome
	}
	candidates := s.TagsWithPrefix(features.CapabilityTag)
	if p, ok := features.LookupProfile(s.Profile); ok && p.Capability != "" {
		candidates = append(candidates, string(p.Capability))
	}
	candidates = append(candidates, ProfilePrefix+string(s.Profile))
	if other != "" {
		return "", 0, other // the scenario's own entry is the most precise: it says what to expect
	}
	for _, id := range candidates {
		if e := byID[id]; e != nil && e.Outcome == o {
			return id, e.Lines[id], ""
		}
	}
	return "", 0, ""
}

// contradictedAlready tells whether a scenario's own entry is already reported: its scenario failed or was
// blocked with the other outcome, and is listed as unexpected with the outcome expected.
func contradictedAlready(id string, o features.Outcome, run Run) bool {
	got := run.Outcomes[id]
	return (got == features.Failed || got == features.Blocked) && got != o
}

// happenedOf tells whether the entry's expectation about id held in the run, whether the run could tell (some
// scenario it concerns came to a verdict), and what happened instead.
func happenedOf(id string, o features.Outcome, cat *catalog.Catalog, run Run) (happened, judged bool, actual string) {
	concerned := scenariosOf(id, cat)
	var outcomes []features.Outcome
	for _, s := range concerned {
		if run.ran(s.ID()) {
			outcomes = append(outcomes, run.Outcomes[s.ID()])
		}
	}
	kind, _ := KindOf(id, cat)
	if o == features.Unsupported && (kind == KindCapability || kind == KindFixture) {
		// The report's unsupportedFeatures say it, also when it lists no scenario one by one (older reports).
		if slices.Contains(run.Report.UnsupportedFeatures(), id) {
			return true, true, ""
		}
		if len(outcomes) == 0 {
			return false, false, ""
		}
		return false, true, "declared by the target: " + describe(outcomes)
	}
	if len(outcomes) == 0 {
		return false, false, ""
	}
	if kind == KindProfile && o == features.Unsupported {
		if profileResult(run.Report, strings.TrimPrefix(id, ProfilePrefix)) == report.NotSupported {
			return true, true, ""
		}
		return false, true, "the profile ran: " + describe(outcomes)
	}
	if slices.Contains(outcomes, o) {
		return true, true, ""
	}
	return false, true, describe(outcomes)
}

// scenariosOf are the scenarios an ID concerns: the scenario itself, those that need the capability or the
// fixture, those of the profile.
func scenariosOf(id string, cat *catalog.Catalog) []catalog.Scenario {
	var out []catalog.Scenario
	for _, s := range cat.Scenarios {
		switch {
		case s.ID() == id,
			ProfilePrefix+string(s.Profile) == id,
			s.HasTag(features.CapabilityTag + id),
			profileCapability(s) == id:
			out = append(out, s)
		default:
			for _, f := range s.TagsWithPrefix(features.FixtureTag) {
				if fixturePrefix+features.Fixture(f).Field() == id {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func profileCapability(s catalog.Scenario) string {
	if p, ok := features.LookupProfile(s.Profile); ok {
		return string(p.Capability)
	}
	return ""
}

func profileResult(rep report.ConformanceReport, name string) report.Verdict {
	for _, p := range rep.Profiles {
		if string(p.Name) == name {
			return p.Core.Result
		}
	}
	return ""
}

// describe says what outcomes the scenarios had: "passed", "2 passed, 1 not supported".
func describe(outcomes []features.Outcome) string {
	counts := map[features.Outcome]int{}
	for _, o := range outcomes {
		counts[o]++
	}
	if len(counts) == 1 {
		return label(outcomes[0])
	}
	var parts []string
	for _, o := range []features.Outcome{features.Passed, features.Failed, features.Blocked, features.Unsupported} {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, label(o)))
		}
	}
	return strings.Join(parts, ", ")
}

func label(o features.Outcome) string {
	if o == features.Unsupported {
		return "not supported"
	}
	return string(o)
}
