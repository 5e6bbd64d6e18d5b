// Package features holds the Gherkin features, the executable form of the interface spec, and the index of the
// spec's sections that scenarios cite with @spec-<id> tags. Both are embedded so that a built tck binary carries
// the suite with it.
package features

import "embed"

// FS holds one folder per area (auth, fortune, greeting, gateway, config), sections.yaml, and the manifests
// the gateway scenarios apply (testdata/gateway).
//
//go:embed */*.feature sections.yaml testdata/gateway/*.yaml
var FS embed.FS

// Areas lists the areas in the order reports show them; a feature's area is the folder it lives in.
var Areas = []string{"auth", "fortune", "greeting", "gateway", "config"}

// Profile is a part of an area with a result of its own in the report, so that an implementation learns where
// it differs by concern: a standard OpenID Connect server passes the OAuth flows and fails UAA's check_token
// without the one hiding the other. A feature joins a profile with the tag @profile-<name>; untagged features
// form the profile named after their area.
type Profile struct {
	Name, Area, Title string
	// Requires names a surface without which no scenario of the profile can run (steps.Surface); a target that
	// lacks it fails the profile with that one reason.
	Requires string
	// Capability makes the whole profile optional: a target that does not declare it gets the profile reported
	// as not supported.
	Capability string
}

// Profiles are listed in report order.
var Profiles = []Profile{
	{Name: "oauth", Area: "auth", Title: "OAuth 2.0 and OpenID Connect: sign-in, consent, code with PKCE, tokens, refresh, userinfo, revocation, errors"},
	{Name: "check-token", Area: "auth", Title: "UAA's token check, POST /check_token (spec 4.1, 2.2)", Requires: "check_token"},
	{Name: "provisioning", Area: "auth", Title: "UAA's provisioning API: users, groups, client registrations", Capability: "auth.provisioning"},
	{Name: "fortune", Area: "fortune", Title: "the fortune service, a resource server (spec 4.2)"},
	{Name: "greeting", Area: "greeting", Title: "the greeting client, a web application (spec 4.3)"},
	{Name: "gateway", Area: "gateway", Title: "the gateway's rate-limit policy (spec 2.7, 8)"},
	{Name: "config", Area: "config", Title: "the configuration server and its client application (spec 4.4, 4.5)"},
}
