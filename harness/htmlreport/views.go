package htmlreport

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// profileViews pairs each profile of the report with the scenarios the page found for it.
func profileViews(rep report.ConformanceReport, scenarios []Scenario, in *Input) []Profile {
	var out []Profile
	for _, p := range rep.Profiles {
		v := Profile{Name: string(p.Name), Summary: p.Summary, Reason: p.Reason, UntestedServices: p.UntestedServices}
		if reg, ok := features.LookupProfile(p.Name); ok {
			v.Title = reg.Title
		}
		v.Core = Result{Verdict: p.Core.Result, Counts: statCounts(p.Core.Statistics)}
		ext := Result{Counts: Counts{}}
		if p.Extended != nil {
			ext = Result{Verdict: p.Extended.Result.Result, Counts: statCounts(p.Extended.Statistics)}
			v.Supported = featureDocs(p.Extended.SupportedFeatures)
			v.Failed = featureDocs(p.Extended.FailedFeatures)
			v.Unverified = featureDocs(p.Extended.UnverifiedFeatures)
			v.Unsupported = featureDocs(p.Extended.UnsupportedFeatures)
		}
		found := map[bool]Counts{false: {}, true: {}}
		for _, s := range scenarios {
			if s.Profile != v.Name {
				continue
			}
			found[s.Extended][s.Outcome]++
			switch s.Outcome {
			case NotSupported:
				if s.Extended {
					ext.Counts[NotSupported]++
				} else {
					v.Core.Counts[NotSupported]++
				}
			case NotUnderTest:
				v.NotUnderTest++
			}
		}
		if p.Extended != nil || ext.Counts.Total() > 0 {
			if ext.Verdict == "" {
				ext.Verdict = report.NotSupported
			}
			v.Extended = &ext
		}
		// The page's outcomes must agree with the report's statistics; a stale cucumber.json would not.
		for _, part := range []struct {
			name  string
			stats Counts
			ext   bool
		}{{"core", v.Core.Counts, false}, {"extended", ext.Counts, true}} {
			for _, o := range []features.Outcome{Passed, Failed, Blocked, Skipped} {
				if got, want := found[part.ext][o], part.stats[o]; got != want {
					in.Notes = append(in.Notes, fmt.Sprintf("profile %s, %s: the report counts %d %s, the page found %d", v.Name, part.name, want, OutcomeLabel(o), got))
				}
			}
		}
		out = append(out, v)
	}
	return out
}

func statCounts(st report.Statistics) Counts {
	return Counts{Passed: st.Passed, Failed: st.Failed, Blocked: st.Blocked, Skipped: st.Skipped}
}

func featureDocs(names []string) []Feature {
	var out []Feature
	for _, n := range names {
		out = append(out, Feature{Name: n, Doc: features.Capability(n).Doc()})
	}
	return out
}

// overall is the worst result of the profiles: failure, blocked, partial, success; profiles the target does not
// support count for nothing.
func overall(rep report.ConformanceReport) report.Verdict {
	rank := map[report.Verdict]int{report.Success: 1, report.Partial: 2, report.BlockedVerdict: 3, report.Failure: 4}
	worst := report.Verdict("")
	for _, p := range rep.Profiles {
		vs := []report.Verdict{p.Core.Result}
		if p.Extended != nil {
			vs = append(vs, p.Extended.Result.Result)
		}
		for _, v := range vs {
			if rank[v] > rank[worst] {
				worst = v
			}
		}
	}
	return cmp.Or(worst, report.NotSupported)
}

func sectionViews(cov *coverage.Coverage, scenarios []Scenario) []Section {
	outcome := map[string]features.Outcome{}
	for _, s := range scenarios {
		outcome[s.ID] = s.Outcome
	}
	var out []Section
	for _, sec := range cov.Sections {
		v := Section{ID: sec.ID, Area: sec.Area, Summary: sec.Summary, NotShown: sec.NotShown}
		for _, cs := range cov.By[sec.ID] {
			v.Scenarios = append(v.Scenarios, ScenarioRef{ID: cs.ID(), Name: cs.Name, Outcome: cmp.Or(outcome[cs.ID()], Unknown)})
		}
		out = append(out, cleanSection(v))
	}
	return out
}

// FilterProfiles are the profiles of the scenarios, in the order of the report, for the page's filter.
func (in Input) FilterProfiles() []string {
	var out []string
	for _, p := range in.Profiles {
		out = append(out, p.Name)
	}
	for _, s := range in.Scenarios {
		if s.Profile != "" && !slices.Contains(out, s.Profile) {
			out = append(out, s.Profile)
		}
	}
	return out
}

// FilterAreas are the areas of the scenarios, in the registry's order, for the page's filter.
func (in Input) FilterAreas() []string {
	var out []string
	for _, a := range features.Areas {
		if slices.ContainsFunc(in.Scenarios, func(s Scenario) bool { return s.Area == string(a) }) {
			out = append(out, string(a))
		}
	}
	return out
}
