package harness

import (
	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/harness/target"
)

// Tags by which a scenario states what it needs of a target besides its area's primary service.
const (
	// ServiceTag: a further service (@service-fortune).
	ServiceTag = "@service-"
	// FixtureTag: an identity beyond the user who holds fortunes.read and the web client
	// (@fixture-outsider, @fixture-resource-client, @fixture-short-lived-client). An administration API makes
	// every identity, so with provisioning these are always there.
	FixtureTag = "@fixture-"
	// FreshConsentTag: the scenario must see a consent page, so its user must not have consented before: it
	// needs fresh users (provisioning), unless the server asks again in every new browser session (it does not
	// declare auth.remembered-consent).
	FreshConsentTag = "@fresh-consent"
)

// fixtureFields name, for each fixture tag, the field of the target file that provides it.
var fixtureFields = map[string]string{
	"outsider":           "fixtures.users.outsider",
	"resource-client":    "fixtures.clients.resource",
	"short-lived-client": "fixtures.clients.shortLived",
}

// missingRequirements lists what the scenario needs and the target does not declare.
func missingRequirements(t *target.Target, s catalog.Scenario) []report.Requirement {
	var out []report.Requirement
	for _, name := range s.TagsWithPrefix(ServiceTag) {
		if !t.HasService(name) {
			out = append(out, report.Requirement{Kind: report.NeedsService, Name: name})
		}
	}
	for _, c := range append(s.TagsWithPrefix(report.CapabilityTag), profileCapability(s.Profile)...) {
		if !t.Has(c) {
			out = append(out, report.Requirement{Kind: report.NeedsCapability, Name: c})
		}
	}
	as := t.Services.AuthServer
	provisioning := as.ProvisioningAPI() != nil
	for _, f := range s.TagsWithPrefix(FixtureTag) {
		if !provisioning && !hasFixture(as, f) || (f == "short-lived-client" && !hasFixture(as, f) && !t.Has("auth.token-lifetimes")) {
			out = append(out, report.Requirement{Kind: report.NeedsFixture, Name: fixtureFields[f]})
		}
	}
	if s.HasTag(FreshConsentTag) && !provisioning && t.Has("auth.remembered-consent") {
		out = append(out, report.Requirement{Kind: report.NeedsCapability, Name: target.ProvisioningCapability})
	}
	return out
}

func hasFixture(as *target.AuthServer, name string) bool {
	if as == nil || as.Fixtures == nil {
		return false
	}
	switch name {
	case "outsider":
		return as.Fixtures.Users.Outsider != nil
	case "resource-client":
		return as.Fixtures.Clients.Resource != nil
	case "short-lived-client":
		return as.Fixtures.Clients.ShortLived != nil
	}
	return false
}

// profileCapability is the capability that makes the scenario's whole profile optional, if any.
func profileCapability(profile string) []string {
	for _, p := range features.Profiles {
		if p.Name == profile && p.Capability != "" {
			return []string{p.Capability}
		}
	}
	return nil
}
