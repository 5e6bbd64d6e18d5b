package harness

import (
	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/target"
)

// missingRequirements lists what the scenario needs and the target does not declare, by the tags of the
// registry (features.ServiceTag, CapabilityTag, FixtureTag, FreshConsentTag) and its profile's capability.
func missingRequirements(t *target.Target, s catalog.Scenario) []report.Requirement {
	var out []report.Requirement
	for _, name := range s.TagsWithPrefix(features.ServiceTag) {
		if !t.HasService(features.Service(name)) {
			out = append(out, report.Requirement{Kind: report.NeedsService, Name: name})
		}
	}
	for _, c := range append(s.TagsWithPrefix(features.CapabilityTag), profileCapability(s.Profile)...) {
		if !t.Has(features.Capability(c)) {
			out = append(out, report.Requirement{Kind: report.NeedsCapability, Name: c})
		}
	}
	as := t.Services.AuthServer
	provisioning := as.ProvisioningAPI() != nil
	for _, name := range s.TagsWithPrefix(features.FixtureTag) {
		f := features.Fixture(name)
		if hasFixture(as, f) {
			continue
		}
		// An administration API makes the identity, when the server has what it takes to make it.
		if needs := f.ProvisionedWith(); provisioning && (needs == "" || t.Has(needs)) {
			continue
		}
		out = append(out, report.Requirement{Kind: report.NeedsFixture, Name: f.Field()})
	}
	if s.HasTag(features.FreshConsentTag) && !provisioning && t.Has(features.CapAuthRememberedConsent) {
		out = append(out, report.Requirement{Kind: report.NeedsCapability, Name: string(target.ProvisioningCapability)})
	}
	return out
}

func hasFixture(as *target.AuthServer, f features.Fixture) bool {
	if as == nil || as.Fixtures == nil {
		return false
	}
	switch f {
	case features.FixtureOutsider:
		return as.Fixtures.Users.Outsider != nil
	case features.FixtureResourceClient:
		return as.Fixtures.Clients.Resource != nil
	case features.FixtureShortLivedClient:
		return as.Fixtures.Clients.ShortLived != nil
	}
	return false
}

// profileCapability is the capability that makes the scenario's whole profile optional, if any.
func profileCapability(profile features.ProfileName) []string {
	if p, ok := features.LookupProfile(profile); ok && p.Capability != "" {
		return []string{string(p.Capability)}
	}
	return nil
}
