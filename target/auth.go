package target

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/features"
)

// AuthServer is the authorization server of spec 4.1. It is named by one of:
//
//   - Issuer: any OpenID Connect server; its endpoints come from {issuer}/.well-known/openid-configuration;
//   - URL: a UAA-shaped server at a base URL; its discovery document is used when it has one, else UAA's paths;
//   - Discovery: the address of a discovery document that does not live under the issuer.
//
// Endpoints given one by one override what discovery says, for servers without discovery. The scenarios need a
// user and clients: Fixtures names identities registered beforehand, Provisioning an API that creates fresh ones
// for every scenario (UAA's; the interface allows others). At least one of the two is required.
type AuthServer struct {
	URL          string        `yaml:"url"`
	Issuer       string        `yaml:"issuer"`
	Discovery    string        `yaml:"discovery"`
	Endpoints    Endpoints     `yaml:"endpoints"`
	Fixtures     *Fixtures     `yaml:"fixtures"`
	Provisioning *Provisioning `yaml:"provisioning"`
	// Admin is the earlier spelling of provisioning through UAA's API with this admin client.
	Admin *AdminClient `yaml:"admin"`
	// Pages describe sign-in and consent controls that the rules by meaning do not find (docs/target-file.md).
	Pages []PageRule `yaml:"pages"`
	// Container, when given, is started by the harness; without url, issuer and discovery, url is its address.
	Container *Container `yaml:"container"`
	// RefreshScopes are the scopes asked for besides a scenario's own when it needs a refresh token, such as
	// OpenID Connect's offline_access (Core 11). Nil means offline_access when the discovery document lists it
	// in scopes_supported; an empty list asks for none.
	RefreshScopes []string `yaml:"refreshScopes,omitempty"`
	// LockoutAfterFailures is how many failed sign-ins in a row lock a user out, for the scenarios of
	// auth.account-lockout; 0 means UAA's default, 5.
	LockoutAfterFailures int `yaml:"lockoutAfterFailures,omitempty"`
	// LockoutPeriodSeconds is how long a locked user stays locked after the latest failed sign-in (UAA's
	// authentication.policy.lockoutPeriodSeconds in uaa.yml), and CountFailuresWithinSeconds how far back failures
	// count (its countFailuresWithinSeconds), both in seconds; CodeLifetimeSeconds is how long an authorization code can be
	// exchanged. 0 means not declared. The scenarios that wait them out run when they are at most
	// MaxWalkedSeconds (the capabilities auth.lockout-period, auth.lockout-window and auth.code-lifetime).
	LockoutPeriodSeconds       int `yaml:"lockoutPeriodSeconds,omitempty"`
	CountFailuresWithinSeconds int `yaml:"countFailuresWithinSeconds,omitempty"`
	CodeLifetimeSeconds        int `yaml:"codeLifetimeSeconds,omitempty"`
}

// MaxWalkedSeconds bounds the periods the scenarios wait out: each such scenario sleeps about as long as the
// period it walks, and the suite's whole run is meant to take about 25 seconds, its scenarios running side
// by side. A longer period (UAA's defaults: 300 s, 3600 s, 300 s) is valid but not walked.
const MaxWalkedSeconds = 10

// maxPeriodSeconds bounds the periods a target file may declare (a day).
const maxPeriodSeconds = 86400

// Walkable tells whether a declared period (seconds; 0 is not declared) is short enough for the scenarios
// to wait it out.
func Walkable(seconds int) bool { return seconds > 0 && seconds <= MaxWalkedSeconds }

// DefaultLockoutAfterFailures is UAA's lockoutPolicy.lockoutAfterFailures.
const DefaultLockoutAfterFailures = 5

// maxLockoutAfterFailures bounds the sign-ins a scenario makes to lock a user out.
const maxLockoutAfterFailures = 100

// Endpoints are the authorization server's endpoints, each an absolute URL. Empty ones come from discovery,
// or from UAA's paths under URL.
type Endpoints struct {
	Authorization string `yaml:"authorization"`
	Token         string `yaml:"token"`
	Userinfo      string `yaml:"userinfo"`
	JWKS          string `yaml:"jwks"`
	Introspection string `yaml:"introspection"`
	Revocation    string `yaml:"revocation"`
	CheckToken    string `yaml:"checkToken"`
}

// Fixtures are identities registered at the authorization server before the run. The harness never creates,
// changes or deletes them.
type Fixtures struct {
	Users   Users   `yaml:"users"`
	Clients Clients `yaml:"clients"`
}

// Users are the end users the scenarios sign in as.
type Users struct {
	// Reader holds fortunes.read (a member of the group). Required.
	Reader *User `yaml:"reader"`
	// Outsider does not hold fortunes.read. Optional: without it, the scenario about outsiders is not supported.
	Outsider *User `yaml:"outsider"`
}

// User is an end user who signs in with a user name and password: a fixture of the target file, or one the
// steps provision for a scenario (which then fill only what they know).
type User struct {
	Username string `yaml:"username"`
	Password string `yaml:"password"`
	// ID is the user's id (UAA's user_id, the token's sub); when empty it is learned from the ID token.
	ID string `yaml:"id"`
	// Email is the user's e-mail address, which check_token and UAA-like userinfo report. Required for the reader.
	Email string `yaml:"email"`
}

// Clients are the registered clients the scenarios act as.
type Clients struct {
	// Web is a confidential client for the authorization code grant, allowed the scopes openid and
	// fortunes.read and the grants authorization_code and refresh_token, with RedirectURI registered. The
	// harness never calls the redirect URI: it reads the code from the redirect. Required.
	Web *Client `yaml:"web"`
	// Resource is the resource server's client: it calls check_token (with the authority authz.resource) or
	// introspection. Required by the scenarios that check tokens.
	Resource *Client `yaml:"resource"`
	// ShortLived is a web client whose access tokens live 4 seconds at most, for the expiry scenarios.
	ShortLived *Client `yaml:"shortLived"`
}

// Client is a registered client: a fixture of the target file, or one the steps register for a scenario.
type Client struct {
	ClientID     string `yaml:"clientId"`
	ClientSecret string `yaml:"clientSecret"`
	RedirectURI  string `yaml:"redirectUri"`
	// AuthMethod is how the client authenticates where a scenario does not name the way (refresh, revocation,
	// introspection): client_secret_basic or client_secret_post, as OpenID Connect Dynamic Client Registration
	// names them. Empty: what the discovery document's *_auth_methods_supported allow, HTTP Basic first.
	AuthMethod string `yaml:"authMethod"`
}

// The client authentication methods a client may name (OpenID Connect Core 9).
const (
	ClientSecretBasic = "client_secret_basic"
	ClientSecretPost  = "client_secret_post"
)

// Provisioning is an administration API through which the harness creates a fresh user and fresh clients for
// every scenario, so that scenarios never share state.
type Provisioning struct {
	// API names the administration API; "uaa" (SCIM users and groups, /oauth/clients) is the one known today.
	API          string `yaml:"api"`
	ClientID     string `yaml:"clientId"`
	ClientSecret string `yaml:"clientSecret"`
}

// ProvisioningAPIs are the administration APIs the harness can provision through.
var ProvisioningAPIs = []string{"uaa"}

// AdminClient is a client id and secret.
type AdminClient struct {
	ClientID     string `yaml:"clientId"`
	ClientSecret string `yaml:"clientSecret"`
}

// PageRule describes the controls of the sign-in or consent pages whose address matches URL (a regular
// expression), for pages the rules by meaning do not understand (lesson 10 of the OpenID Foundation's suite).
type PageRule struct {
	URL      string   `yaml:"url"`
	Username *Control `yaml:"username"`
	Password *Control `yaml:"password"`
	Approve  *Control `yaml:"approve"`
	Deny     *Control `yaml:"deny"`
}

// Control picks an element by the attributes it has; every one given must match. Text is the visible text of
// a button or link (or the value of an input button), compared without case.
type Control struct {
	ID    string `yaml:"id"`
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
	Text  string `yaml:"text"`
}

// ProvisioningAPI returns the provisioning the target declares, whichever way it is written; nil without one.
func (as *AuthServer) ProvisioningAPI() *Provisioning {
	switch {
	case as == nil:
		return nil
	case as.Provisioning != nil:
		return as.Provisioning
	case as.Admin != nil:
		return &Provisioning{API: "uaa", ClientID: as.Admin.ClientID, ClientSecret: as.Admin.ClientSecret}
	}
	return nil
}

func (as *AuthServer) applyDefaults() {
	if as == nil {
		return
	}
	as.URL = strings.TrimRight(as.URL, "/")
	if as.LockoutAfterFailures == 0 {
		as.LockoutAfterFailures = DefaultLockoutAfterFailures
	}
	// The issuer stays as written: discovery compares it exactly (OpenID Connect Discovery 4.3), and a
	// server's issuer may end with a slash.
	if as.Provisioning != nil && as.Provisioning.API == "" {
		as.Provisioning.API = "uaa"
	}
}

func (as *AuthServer) validate() []string {
	if as == nil {
		return nil
	}
	const f = "services.authServer"
	var problems []string
	problems = append(problems, as.Container.validate(f)...)
	switch {
	case as.URL == "" && as.Issuer == "" && as.Discovery == "" && as.Container == nil:
		problems = append(problems, f+": give issuer (an OpenID Connect server, found by discovery) or url (a UAA-shaped server's base URL)")
	case as.URL != "" && as.Issuer != "":
		problems = append(problems, f+": give issuer or url, not both: the issuer is found by discovery, url is a UAA-shaped server's base")
	}
	for _, u := range []struct{ field, v string }{{"url", as.URL}, {"issuer", as.Issuer}, {"discovery", as.Discovery}} {
		if u.v != "" && !deferredURL(as.Container, u.v) {
			problems = append(problems, checkHTTPURL(f+"."+u.field, u.v)...)
		}
	}
	e := as.Endpoints
	for _, u := range []struct{ field, v string }{{"authorization", e.Authorization}, {"token", e.Token},
		{"userinfo", e.Userinfo}, {"jwks", e.JWKS}, {"introspection", e.Introspection}, {"revocation", e.Revocation},
		{"checkToken", e.CheckToken}} {
		if u.v != "" {
			problems = append(problems, checkHTTPURL(f+".endpoints."+u.field, u.v)...)
		}
	}
	if as.Fixtures == nil && as.Provisioning == nil && as.Admin == nil {
		problems = append(problems, f+": give fixtures (a user and clients registered beforehand) or provisioning "+
			"(an admin client for UAA's provisioning API): the auth, fortune and greeting scenarios sign a user in "+
			"with a client; see docs/target-file.md, \"The authorization server\"")
	}
	if as.Provisioning != nil && as.Admin != nil {
		problems = append(problems, f+": give provisioning or admin (its earlier spelling), not both")
	}
	problems = append(problems, as.Fixtures.validate(f+".fixtures")...)
	problems = append(problems, as.Provisioning.validate(f+".provisioning")...)
	if as.Admin != nil && (as.Admin.ClientID == "" || as.Admin.ClientSecret == "") {
		problems = append(problems, f+".admin: clientId and clientSecret are required: the harness provisions users and clients with the admin client's token")
	}
	if n := as.LockoutAfterFailures; n < 0 || n > maxLockoutAfterFailures {
		problems = append(problems, fmt.Sprintf("%s.lockoutAfterFailures: %d is not a number of failed sign-ins from 1 to %d",
			f, n, maxLockoutAfterFailures))
	}
	for _, p := range []struct {
		field string
		n     int
	}{{"lockoutPeriodSeconds", as.LockoutPeriodSeconds}, {"countFailuresWithinSeconds", as.CountFailuresWithinSeconds},
		{"codeLifetimeSeconds", as.CodeLifetimeSeconds}} {
		if p.n < 0 || p.n > maxPeriodSeconds {
			problems = append(problems, fmt.Sprintf("%s.%s: %d is not a number of seconds from 1 to %d (leave it out "+
				"when the server does not say)", f, p.field, p.n, maxPeriodSeconds))
		}
	}
	for i, p := range as.Pages {
		problems = append(problems, p.validate(fmt.Sprintf("%s.pages[%d]", f, i))...)
	}
	return problems
}

func (fx *Fixtures) validate(f string) []string {
	if fx == nil {
		return nil
	}
	var problems []string
	if fx.Users.Reader == nil {
		problems = append(problems, f+".users.reader: required: a user who holds fortunes.read (username, password, email)")
	} else if fx.Users.Reader.Email == "" {
		problems = append(problems, f+".users.reader.email: required: the user's e-mail address, which check_token and userinfo report")
	}
	if fx.Clients.Web == nil {
		problems = append(problems, f+".clients.web: required: a confidential client for the authorization code grant (clientId, clientSecret, redirectUri)")
	}
	for _, u := range []struct {
		name string
		u    *User
	}{{"reader", fx.Users.Reader}, {"outsider", fx.Users.Outsider}} {
		if u.u != nil && (u.u.Username == "" || u.u.Password == "") {
			problems = append(problems, f+".users."+u.name+": username and password are required")
		}
	}
	for _, nc := range []struct {
		name string
		c    *Client
	}{{"web", fx.Clients.Web}, {"resource", fx.Clients.Resource}, {"shortLived", fx.Clients.ShortLived}} {
		name, c := nc.name, nc.c
		if c == nil {
			continue
		}
		if c.ClientID == "" || c.ClientSecret == "" {
			problems = append(problems, f+".clients."+name+": clientId and clientSecret are required")
		}
		if c.AuthMethod != "" && c.AuthMethod != ClientSecretBasic && c.AuthMethod != ClientSecretPost {
			problems = append(problems, fmt.Sprintf("%s.clients.%s.authMethod: %q is not a method the harness knows; give %s or %s",
				f, name, c.AuthMethod, ClientSecretBasic, ClientSecretPost))
		}
		if name != "resource" {
			if c.RedirectURI == "" {
				problems = append(problems, f+".clients."+name+".redirectUri: required: a redirect URI registered for the client (nothing needs to listen there)")
			} else if p := checkAbsoluteURL(f+".clients."+name+".redirectUri", c.RedirectURI); p != "" {
				problems = append(problems, p)
			}
		}
	}
	return append(problems, fx.collisions(f)...)
}

// collisions finds fixtures that name one identity twice in ways that cannot both hold. The web client may
// also be the resource client (a server that answers introspection only to a client in the token's audience
// needs that), with one secret and one way to authenticate; the short-lived client may not be either, or every
// scenario's tokens would expire within seconds; the reader and the outsider cannot be one user.
func (fx *Fixtures) collisions(f string) []string {
	var problems []string
	if r, o := fx.Users.Reader, fx.Users.Outsider; r != nil && o != nil && r.Username != "" && r.Username == o.Username {
		problems = append(problems, fmt.Sprintf("%s.users.outsider: %q is also users.reader: the outsider must be a user "+
			"who does not hold fortunes.read", f, o.Username))
	}
	type named struct {
		name string
		c    *Client
	}
	clients := []named{{"web", fx.Clients.Web}, {"resource", fx.Clients.Resource}, {"shortLived", fx.Clients.ShortLived}}
	for i, a := range clients {
		for _, b := range clients[i+1:] {
			if a.c == nil || b.c == nil || a.c.ClientID == "" || a.c.ClientID != b.c.ClientID {
				continue
			}
			field := fmt.Sprintf("%s.clients.%s.clientId", f, b.name)
			switch {
			case a.name == "shortLived" || b.name == "shortLived":
				problems = append(problems, fmt.Sprintf("%s: %q is also clients.%s: the short-lived client must be a "+
					"client of its own, whose tokens expire within seconds", field, b.c.ClientID, a.name))
			case a.c.ClientSecret != b.c.ClientSecret:
				problems = append(problems, fmt.Sprintf("%s: %q is also clients.%s, with another clientSecret: one "+
					"client has one secret", field, b.c.ClientID, a.name))
			case a.c.AuthMethod != b.c.AuthMethod && a.c.AuthMethod != "" && b.c.AuthMethod != "":
				problems = append(problems, fmt.Sprintf("%s: %q is also clients.%s, with another authMethod", field,
					b.c.ClientID, a.name))
			}
		}
	}
	return problems
}

func (p *Provisioning) validate(f string) []string {
	if p == nil {
		return nil
	}
	var problems []string
	if p.API != "" && !slices.Contains(ProvisioningAPIs, p.API) {
		problems = append(problems, fmt.Sprintf("%s.api: %q is not an administration API the harness knows; known: %s",
			f, p.API, strings.Join(ProvisioningAPIs, ", ")))
	}
	if p.ClientID == "" || p.ClientSecret == "" {
		problems = append(problems, f+": clientId and clientSecret are required: the admin client that gets a token for the administration API")
	}
	return problems
}

func (r PageRule) validate(f string) []string {
	var problems []string
	if r.URL == "" {
		problems = append(problems, f+".url: required: a regular expression matched against the page's address")
	} else if _, err := regexp.Compile(r.URL); err != nil {
		problems = append(problems, fmt.Sprintf("%s.url: %q is not a regular expression: %v", f, r.URL, err))
	}
	given := 0
	for _, nc := range []struct {
		name string
		c    *Control
	}{{"username", r.Username}, {"password", r.Password}, {"approve", r.Approve}, {"deny", r.Deny}} {
		name, c := nc.name, nc.c
		if c == nil {
			continue
		}
		given++
		if *c == (Control{}) {
			problems = append(problems, f+"."+name+": give at least one of id, name, value, text")
		}
	}
	if given == 0 {
		problems = append(problems, f+": describe at least one control: username, password, approve or deny")
	}
	return problems
}

func checkAbsoluteURL(field, raw string) string {
	if m := regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]+`).MatchString(raw); !m {
		return fmt.Sprintf("%s: %q is not an absolute URL", field, raw)
	}
	return ""
}

// walksPeriod tells whether the server declares the period of an implied capability, short enough to walk.
func (as *AuthServer) walksPeriod(c features.Capability) bool {
	if as == nil {
		return false
	}
	switch c {
	case features.CapAuthLockoutPeriod:
		return Walkable(as.LockoutPeriodSeconds)
	case features.CapAuthLockoutWindow:
		return Walkable(as.CountFailuresWithinSeconds)
	case features.CapAuthCodeLifetime:
		return Walkable(as.CodeLifetimeSeconds)
	}
	return false
}
