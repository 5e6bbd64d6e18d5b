package htmlreport

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// outcomeOf tells a scenario's outcome and why, from the report's lists, its cucumber result and what the
// report says the target lacks.
func outcomeOf(cs catalog.Scenario, e *element, p *report.Profile, failed bool, blocked map[string]string, skipped bool) (features.Outcome, string) {
	id := cs.ID()
	var steps []cukeStep
	if e != nil {
		steps = e.el.Steps
	}
	switch cause, isBlocked := blocked[id]; {
	case failed:
		return Failed, cukeFailure(steps)
	case isBlocked:
		return Blocked, cmp.Or(cause, "a precondition failed")
	case skipped:
		return Skipped, "left out by --tags"
	}
	if p == nil {
		area := cs.Area
		return NotUnderTest, fmt.Sprintf("the target declares no %s service, so the %s area is not under test", area.Primary(), area)
	}
	for _, svc := range cs.TagsWithPrefix(features.ServiceTag) {
		if slices.Contains(p.UntestedServices, svc) {
			return NotUnderTest, fmt.Sprintf("it needs the %s service, which the target does not declare", svc)
		}
	}
	if e != nil && ran(steps) && passedAll(steps) {
		return Passed, ""
	}
	var unsupported []string
	if p.Extended != nil {
		unsupported = p.Extended.UnsupportedFeatures
	}
	var lacks []string
	for _, r := range requirements(cs) {
		if slices.Contains(unsupported, r) {
			lacks = append(lacks, r)
		}
	}
	if len(lacks) > 0 {
		return NotSupported, "it needs " + strings.Join(lacks, ", ") + ", which the target does not declare"
	}
	if e != nil && ran(steps) {
		if msg := cukeFailure(steps); msg != "" {
			return Failed, msg + "\n(cucumber.json says this step failed; the conformance report does not list the scenario)"
		}
	}
	if e != nil && !ran(steps) {
		return NotSupported, "not run: the target lacks something it needs (the report does not say what)"
	}
	return Unknown, "neither the conformance report nor cucumber.json accounts for this scenario"
}

// requirements are what a scenario may need beyond its area's service, as the report's unsupportedFeatures
// name them: capabilities (its own and its profile's), fixtures ("fixture fixtures.users.outsider"), and fresh
// users for a scenario that must see a consent page.
func requirements(cs catalog.Scenario) []string {
	out := cs.TagsWithPrefix(features.CapabilityTag)
	if p, ok := features.LookupProfile(cs.Profile); ok && p.Capability != "" {
		out = append(out, string(p.Capability))
	}
	for _, f := range cs.TagsWithPrefix(features.FixtureTag) {
		out = append(out, report.Requirement{Kind: report.NeedsFixture, Name: features.Fixture(f).Field()}.Feature())
	}
	if cs.HasTag(features.FreshConsentTag) {
		out = append(out, string(features.CapAuthProvisioning))
	}
	return out
}

func ran(steps []cukeStep) bool {
	return slices.ContainsFunc(steps, func(s cukeStep) bool { return s.Result.Status != "skipped" && s.Result.Status != "" })
}

func passedAll(steps []cukeStep) bool {
	return len(steps) > 0 && !slices.ContainsFunc(steps, func(s cukeStep) bool { return s.Result.Status != "passed" })
}

// cukeFailure is the error of the first failed step, else of the first step with an error.
func cukeFailure(steps []cukeStep) string {
	for _, s := range steps {
		if s.Result.Status == "failed" && s.Result.Error != "" {
			return s.Result.Error
		}
	}
	for _, s := range steps {
		if s.Result.Error != "" {
			return s.Result.Error
		}
	}
	return ""
}

func failureMessage(steps []Step) string {
	for _, s := range steps {
		if s.Error != "" {
			return s.Error
		}
	}
	return ""
}
