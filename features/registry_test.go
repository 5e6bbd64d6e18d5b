package features

import (
	"path"
	"slices"
	"strings"
	"testing"

	messages "github.com/cucumber/messages/go/v21"
)

// Guards the registry against the feature files, both ways: a tag that names nothing in the registry would
// leave its scenario out of every run (or fail it) without anyone noticing, and an entry no scenario needs is
// a capability a target could declare for nothing.
func TestEveryTagNamesTheRegistryAndEveryEntryIsUsed(t *testing.T) {
	used := map[string]bool{}
	for file, tags := range featureTags(t) {
		area := Area(path.Dir(file))
		if !slices.Contains(Areas, area) {
			t.Errorf("%s: the folder %s is not an area of features.Areas", file, area)
		}
		for _, tag := range tags {
			used[tag] = true
			checkTag(t, file, area, tag)
		}
	}
	for _, s := range Services {
		if !used[ServiceTag+string(s)] && !slices.ContainsFunc(Areas, func(a Area) bool { return a.Primary() == s }) {
			t.Errorf("service %s is neither an area's primary service nor named by a @service- tag", s)
		}
	}
	for _, p := range Profiles {
		if !used[ProfileTag+string(p.Name)] && string(p.Name) != string(p.Area) {
			t.Errorf("profile %s is neither its area's default profile nor named by a @profile- tag", p.Name)
		}
	}
	for _, f := range Fixtures {
		if !used[FixtureTag+string(f)] {
			t.Errorf("fixture %s is named by no @fixture- tag", f)
		}
	}
	for _, c := range Capabilities {
		if !used[CapabilityTag+string(c.Name)] && !capabilityConsulted(c.Name) {
			t.Errorf("capability %s is in the registry but no scenario, profile or fixture needs it", c.Name)
		}
	}
}

func checkTag(t *testing.T, file string, area Area, tag string) {
	t.Helper()
	if v, ok := strings.CutPrefix(tag, ServiceTag); ok && !slices.Contains(Services, Service(v)) {
		t.Errorf("%s: %s names no service of features.Services (%s)", file, tag, List(Services))
	}
	if v, ok := strings.CutPrefix(tag, CapabilityTag); ok {
		if _, known := LookupCapability(v); !known {
			t.Errorf("%s: %s names no capability of features.Capabilities", file, tag)
		}
	}
	if v, ok := strings.CutPrefix(tag, FixtureTag); ok && !slices.Contains(Fixtures, Fixture(v)) {
		t.Errorf("%s: %s names no fixture of features.Fixtures (%s)", file, tag, List(Fixtures))
	}
	if v, ok := strings.CutPrefix(tag, ProfileTag); ok {
		p, known := LookupProfile(ProfileName(v))
		if !known || p.Area != area {
			t.Errorf("%s: %s names no profile of the area %s in features.Profiles", file, tag, area)
		}
	}
}

// capabilityConsulted tells a capability the harness consults without a tag: a whole profile's, a fixture's
// provisioning, or the one that decides whether @fresh-consent needs fresh users.
func capabilityConsulted(c Capability) bool {
	for _, p := range Profiles {
		if p.Capability == c {
			return true
		}
	}
	for _, f := range Fixtures {
		if f.ProvisionedWith() == c {
			return true
		}
	}
	return c == CapAuthRememberedConsent
}

func TestTheRegistryIsSortedAndDocumented(t *testing.T) {
	for i, c := range Capabilities {
		if c.Doc == "" || c.Name.Doc() != c.Doc {
			t.Errorf("capability %s has no doc", c.Name)
		}
		if i > 0 && Capabilities[i-1].Name >= c.Name {
			t.Errorf("capabilities not sorted or repeated at %s", c.Name)
		}
	}
	if slices.Contains(DeclarableCapabilities(), CapAuthProvisioning) {
		t.Error("auth.provisioning is declared by services.authServer.provisioning, not in the list")
	}
	for _, c := range Capabilities {
		if c.Implied != (c.DeclaredBy != "") || (c.Implied && slices.Contains(DeclarableCapabilities(), c.Name)) {
			t.Errorf("capability %s: implied %v, declared by %q", c.Name, c.Implied, c.DeclaredBy)
		}
	}
	for _, a := range Areas {
		if a.Primary() == "" {
			t.Errorf("area %s has no primary service", a)
		}
	}
	if Area("nowhere").Primary() != "" || Capability("x.y").Doc() != "" || Fixture("x").Field() != "" {
		t.Error("an unknown name has an entry")
	}
}

// featureTags lists, per feature file, every tag of the feature, its rules, scenarios and examples.
func featureTags(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, f := range parsedFeatures(t) {
		out[name] = tagsOf(f)
	}
	return out
}

func tagsOf(f *messages.Feature) []string {
	var out []string
	add := func(tags []*messages.Tag) {
		for _, tg := range tags {
			out = append(out, tg.Name)
		}
	}
	scenario := func(sc *messages.Scenario) {
		add(sc.Tags)
		for _, ex := range sc.Examples {
			add(ex.Tags)
		}
	}
	add(f.Tags)
	for _, c := range f.Children {
		if c.Scenario != nil {
			scenario(c.Scenario)
		}
		if c.Rule != nil {
			add(c.Rule.Tags)
			for _, rc := range c.Rule.Children {
				if rc.Scenario != nil {
					scenario(rc.Scenario)
				}
			}
		}
	}
	return out
}
