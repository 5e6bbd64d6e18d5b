// Package rundiff compares two runs of the suite by their conformance reports (tck diff OLD NEW), stable ID by
// stable ID: scenarios newly failing or blocked, newly passing, newly not supported, only in one run (added to
// or removed from the suite, or not under test in the other run), capabilities gained or lost, profiles whose
// result changed, and a different suite version. A regression is what was verified before and is not now: a
// scenario newly failing or blocked, one that passed and is now not supported, a capability or a profile lost
// (a profile's result that changed is listed, its scenarios counted). As the OpenID Foundation's compare-results, it is meant for a CI job that compares a
// change's run with the main branch's.
package rundiff

import (
	"fmt"
	"slices"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Side is one of the two runs.
type Side struct {
	Path           string `json:"path"`
	Implementation string `json:"implementation"`
	SuiteVersion   string `json:"suiteVersion"`
	Date           string `json:"date"`
}

// Change is one difference between the runs.
type Change struct {
	// Category is what kind of change it is (the constants below).
	Category Category `json:"category"`
	// ID is the stable ID of the scenario, the capability or "profile:<name>".
	ID string `json:"id"`
	// Old and New are the outcomes (or results) in each run; empty where the run does not have it.
	Old        string `json:"old,omitempty"`
	New        string `json:"new,omitempty"`
	Regression bool   `json:"regression"`
}

// Category names a kind of change.
type Category string

// The categories, in the order the outputs list them.
const (
	NewlyFailing      Category = "newly failing or blocked"
	NewlyNotSupported Category = "newly not supported"
	CapabilityLost    Category = "capability lost"
	ProfileOnlyOld    Category = "profile only in the old run"
	ProfileChanged    Category = "profile result changed"
	NewlyPassing      Category = "newly passing"
	CapabilityGained  Category = "capability gained"
	OutcomeChanged    Category = "outcome changed"
	OnlyNew           Category = "only in the new run"
	OnlyOld           Category = "only in the old run"
	ProfileOnlyNew    Category = "profile only in the new run"
)

// Categories lists the categories in output order.
var Categories = []Category{NewlyFailing, NewlyNotSupported, CapabilityLost, ProfileOnlyOld, ProfileChanged,
	NewlyPassing, CapabilityGained, OutcomeChanged, OnlyNew, OnlyOld, ProfileOnlyNew}

// Diff is the comparison of two runs.
type Diff struct {
	Old     Side     `json:"old"`
	New     Side     `json:"new"`
	Changes []Change `json:"changes"`
	// Regressions counts the changes that are regressions.
	Regressions int `json:"regressions"`
}

// Compare compares two reports. Reports that share no profile are not two runs of one target: an error that
// names what each tested.
func Compare(oldPath string, old report.ConformanceReport, newPath string, cur report.ConformanceReport) (*Diff, error) {
	if !shareProfile(old, cur) {
		return nil, fmt.Errorf("the runs share no profile (%s tested %s; %s tested %s): compare two runs of one target",
			oldPath, profileList(old), newPath, profileList(cur))
	}
	d := &Diff{Old: side(oldPath, old), New: side(newPath, cur)}
	d.scenarios(old.Outcomes(), cur.Outcomes())
	d.capabilities(old, cur)
	d.profiles(old, cur)
	slices.SortStableFunc(d.Changes, func(a, b Change) int {
		return slices.Index(Categories, a.Category) - slices.Index(Categories, b.Category)
	})
	for _, c := range d.Changes {
		if c.Regression {
			d.Regressions++
		}
	}
	return d, nil
}

func side(path string, rep report.ConformanceReport) Side {
	impl := rep.Implementation.Project
	if rep.Implementation.Version != "" {
		impl += " " + rep.Implementation.Version
	}
	return Side{Path: path, Implementation: impl, SuiteVersion: rep.SuiteVersion, Date: rep.Date}
}

func shareProfile(a, b report.ConformanceReport) bool {
	for _, p := range a.Profiles {
		if slices.ContainsFunc(b.Profiles, func(q report.Profile) bool { return q.Name == p.Name }) {
			return true
		}
	}
	return false
}

func profileList(rep report.ConformanceReport) string {
	var names []string
	for _, p := range rep.Profiles {
		names = append(names, string(p.Name))
	}
	if len(names) == 0 {
		return "no profile"
	}
	return features.List(names)
}

func failing(o features.Outcome) bool { return o == features.Failed || o == features.Blocked }

// scenarios compares every scenario's outcome.
func (d *Diff) scenarios(old, cur map[string]features.Outcome) {
	for _, id := range sortedUnion(old, cur) {
		o, inOld := old[id]
		n, inNew := cur[id]
		c := Change{ID: id, Old: label(o), New: label(n)}
		switch {
		case !inOld:
			c.Category, c.Regression = OnlyNew, failing(n)
			if failing(n) {
				c.Category = NewlyFailing
			}
		case !inNew:
			c.Category = OnlyOld
		case o == n:
			continue
		case failing(n) && !failing(o):
			c.Category, c.Regression = NewlyFailing, true
		case n == features.Passed:
			c.Category = NewlyPassing
		case n == features.Unsupported:
			c.Category, c.Regression = NewlyNotSupported, o == features.Passed
		default: // failed <-> blocked, something -> skipped, not supported -> skipped
			c.Category = OutcomeChanged
		}
		d.Changes = append(d.Changes, c)
	}
}

func sortedUnion[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func label(o features.Outcome) string {
	if o == features.Unsupported {
		return "not supported"
	}
	return string(o)
}

// capabilities compares what each run showed supported: a capability supported before and not now is lost.
func (d *Diff) capabilities(old, cur report.ConformanceReport) {
	before, after := supported(old), supported(cur)
	for _, c := range sortedUnion(before, after) {
		switch {
		case before[c] && !after[c]:
			d.Changes = append(d.Changes, Change{Category: CapabilityLost, ID: c, Old: "supported", New: capabilityState(cur, c), Regression: true})
		case after[c] && !before[c]:
			d.Changes = append(d.Changes, Change{Category: CapabilityGained, ID: c, Old: capabilityState(old, c), New: "supported"})
		}
	}
}

func supported(rep report.ConformanceReport) map[string]bool {
	out := map[string]bool{}
	for _, p := range rep.Profiles {
		if p.Extended != nil {
			for _, c := range p.Extended.SupportedFeatures {
				out[c] = true
			}
		}
	}
	return out
}

// capabilityState says what a run showed of a capability it does not support.
func capabilityState(rep report.ConformanceReport, c string) string {
	for _, p := range rep.Profiles {
		if p.Extended == nil {
			continue
		}
		switch {
		case slices.Contains(p.Extended.FailedFeatures, c):
			return "failed"
		case slices.Contains(p.Extended.UnverifiedFeatures, c):
			return "unverified"
		case slices.Contains(p.Extended.UnsupportedFeatures, c):
			return "not supported"
		}
	}
	return "not shown"
}

// profiles compares each profile's result (the worse of core and extended).
func (d *Diff) profiles(old, cur report.ConformanceReport) {
	results := func(rep report.ConformanceReport) map[string]report.Verdict {
		out := map[string]report.Verdict{}
		for _, p := range rep.Profiles {
			v := p.Core.Result
			if p.Extended != nil && rank(p.Extended.Result.Result) > rank(v) {
				v = p.Extended.Result.Result
			}
			out[string(p.Name)] = v
		}
		return out
	}
	before, after := results(old), results(cur)
	for _, name := range sortedUnion(before, after) {
		o, inOld := before[name]
		n, inNew := after[name]
		id := "profile:" + name
		switch {
		case !inNew:
			d.Changes = append(d.Changes, Change{Category: ProfileOnlyOld, ID: id, Old: string(o), Regression: true})
		case !inOld:
			d.Changes = append(d.Changes, Change{Category: ProfileOnlyNew, ID: id, New: string(n)})
		case o != n:
			// Not a regression of its own: the scenarios that made it worse are.
			d.Changes = append(d.Changes, Change{Category: ProfileChanged, ID: id, Old: string(o), New: string(n)})
		}
	}
}

// rank orders the results from best to worst.
func rank(v report.Verdict) int {
	return slices.Index([]report.Verdict{report.Success, report.NotSupported, report.Partial, report.BlockedVerdict, report.Failure}, v)
}
