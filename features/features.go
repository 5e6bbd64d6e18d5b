// Package features holds the Gherkin features, the executable form of the interface spec, and the index of the
// spec's sections that scenarios cite with @spec-<id> tags. Both are embedded so that a built tck binary carries
// the suite with it, and the registry (registry.go): the typed names of services, areas, profiles, capabilities,
// fixtures, requirement kinds, outcomes and results that feature tags, target files, the runner and the report
// share. Every layer may import it; it imports nothing of the project.
package features

import (
	"embed"
	"slices"
)

// FS holds one folder per area (auth, fortune, greeting, gateway, config), sections.yaml, and the manifests
// the gateway scenarios apply (testdata/gateway).
//
//go:embed */*.feature sections.yaml testdata/gateway/*.yaml
var FS embed.FS

// Profile is a part of an area with a result of its own in the report, so that an implementation learns where
// it differs by concern: a standard OpenID Connect server passes the OAuth flows and fails UAA's check_token
// without the one hiding the other. A feature joins a profile with the tag @profile-<name>; untagged features
// form the profile named after their area.
type Profile struct {
	Name  ProfileName
	Area  Area
	Title string
	// Requires names a surface without which no scenario of the profile can run; a target that lacks it
	// fails the profile with that one reason.
	Requires Surface
	// Capability makes the whole profile optional: a target that does not declare it gets the profile reported
	// as not supported.
	Capability Capability
}

// Profiles are listed in report order.
var Profiles = []Profile{
	{Name: ProfileOAuth, Area: AreaAuth, Title: "OAuth 2.0 and OpenID Connect: sign-in, consent, code with PKCE, tokens, refresh, userinfo, revocation, errors"},
	{Name: ProfileCheckToken, Area: AreaAuth, Title: "UAA's token check, POST /check_token (spec 4.1, 2.2)", Requires: SurfaceCheckToken},
	{Name: ProfileProvisioning, Area: AreaAuth, Title: "UAA's provisioning API: users, groups, client registrations", Capability: CapAuthProvisioning},
	{Name: ProfileFortune, Area: AreaFortune, Title: "the fortune service, a resource server (spec 4.2)"},
	{Name: ProfileGreeting, Area: AreaGreeting, Title: "the greeting client, a web application (spec 4.3)"},
	{Name: ProfileGateway, Area: AreaGateway, Title: "the gateway's rate-limit policy (spec 2.7, 8)"},
	{Name: ProfileConfig, Area: AreaConfig, Title: "the configuration server and its client application (spec 4.4, 4.5)"},
}

// LookupProfile finds a profile by name.
func LookupProfile(name ProfileName) (Profile, bool) {
	i := slices.IndexFunc(Profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, false
	}
	return Profiles[i], true
}
