package auth

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// endpoints are the authorization server's endpoints as Preflight resolved them, absolute URLs: the target's
// (target.Endpoints), else its discovery document's, else UAA's paths; issuer is the iss of its tokens.
type endpoints struct {
	target.Endpoints
	Issuer string
}

// adminAPI is the administration API the target declares (services.authServer.provisioning, or admin) at the
// base URL its paths are under.
type adminAPI struct {
	*target.Provisioning
	URL string
}

// adminAPIOf is the target's administration API; nil without one. It lives under the server's url, or, for a
// UAA-shaped server named by its issuer (UAA's is its token endpoint, spec 9.2), under the issuer's base.
func adminAPIOf(as *target.AuthServer) *adminAPI {
	p := as.ProvisioningAPI()
	if p == nil {
		return nil
	}
	return &adminAPI{Provisioning: p, URL: cmp.Or(as.URL, strings.TrimSuffix(as.Issuer, "/oauth/token"))}
}

// wellKnown is where OpenID Connect Discovery puts the document, under the issuer.
const wellKnown = "/.well-known/openid-configuration"

// discoveryDocument holds the members of OpenID Provider Metadata (and RFC 8414) the steps use.
type discoveryDocument struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	UserinfoEndpoint      string   `json:"userinfo_endpoint"`
	JWKSURI               string   `json:"jwks_uri"`
	IntrospectionEndpoint string   `json:"introspection_endpoint"`
	RevocationEndpoint    string   `json:"revocation_endpoint"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
	ScopesSupported       []string `json:"scopes_supported"`
	GrantTypesSupported   []string `json:"grant_types_supported"`
	// The client authentication methods of each endpoint (RFC 8414 2): absent means client_secret_basic.
	TokenAuthMethods         []string `json:"token_endpoint_auth_methods_supported"`
	RevocationAuthMethods    []string `json:"revocation_endpoint_auth_methods_supported"`
	IntrospectionAuthMethods []string `json:"introspection_endpoint_auth_methods_supported"`
}

// discoveryURL is where OpenID Connect Discovery 4 puts an issuer's document: a terminating "/" of the issuer
// is removed before the well-known path is appended.
func discoveryURL(issuer string) string { return strings.TrimRight(issuer, "/") + wellKnown }

// resolveEndpoints finds the authorization server's endpoints: the ones the target gives, then its discovery
// document, then (for a UAA-shaped server named by url only) UAA's paths. Every problem names the target's field
// and the URL, because it is an error of the run, not of a scenario.
//
// The discovery document is returned too (nil for a UAA-shaped server without one): its scopes, grants and
// client authentication methods tell the steps how to ask.
func resolveEndpoints(ctx context.Context, client *resty.Client, run *core.Run, as *target.AuthServer) (endpoints, *discoveryDocument, error) {
	docURL, field, optional := as.Discovery, "services.authServer.discovery", false
	switch {
	case docURL != "":
	case as.Issuer != "":
		docURL, field = discoveryURL(as.Issuer), "services.authServer.issuer"
	default:
		docURL, field, optional = discoveryURL(as.URL), "services.authServer.url", true
	}
	done := run.Waiting("the discovery document at " + docURL)
	doc, err := fetchDiscovery(ctx, client, docURL, as.Issuer)
	done()
	var found endpoints
	switch {
	case err == errNoDocument && optional:
		found, doc = uaaEndpoints(as.URL), nil
	case err != nil:
		return endpoints{}, nil, fmt.Errorf("%s: the discovery document at %s: %w", field, docURL, err)
	default:
		found = endpoints{Issuer: doc.Issuer, Endpoints: target.Endpoints{Authorization: doc.AuthorizationEndpoint,
			Token: doc.TokenEndpoint, Userinfo: doc.UserinfoEndpoint, JWKS: doc.JWKSURI,
			Introspection: doc.IntrospectionEndpoint, Revocation: doc.RevocationEndpoint}}
	}
	if found.CheckToken == "" {
		base := strings.TrimRight(cmp.Or(as.URL, found.Issuer), "/")
		found.CheckToken = strings.TrimSuffix(base, "/oauth/token") + "/check_token"
	}
	if doc != nil {
		if err := checkDiscovered(run.Origins, overlaidDoc(doc, as.Endpoints)); err != nil {
			return endpoints{}, nil, fmt.Errorf("%s: the discovery document at %s %w", field, docURL, err)
		}
	}
	return overlay(found, as.Endpoints), doc, nil
}

// checkDiscovered checks that every endpoint the discovery document names is on an origin the target file
// declares: the issuer's (or the url's, or the discovery document's), an endpoint given one by one, or one of
// allowedOrigins. Another origin, another port of the issuer's host included, would let a document send the
// harness, with its tokens, to any service of the tester's machine or network.
func checkDiscovered(origins *core.Origins, doc *discoveryDocument) error {
	for _, m := range []struct{ name, v string }{{"authorization_endpoint", doc.AuthorizationEndpoint},
		{"token_endpoint", doc.TokenEndpoint}, {"userinfo_endpoint", doc.UserinfoEndpoint}, {"jwks_uri", doc.JWKSURI},
		{"introspection_endpoint", doc.IntrospectionEndpoint}, {"revocation_endpoint", doc.RevocationEndpoint}} {
		u, err := url.Parse(m.v)
		if m.v == "" || err != nil || origins.Allows(u) {
			continue
		}
		return fmt.Errorf("names %s %s, on an origin the target file does not declare: the harness contacts only "+
			"the issuer's origin and those the file names; if the server really serves it there, add %s to "+
			"allowedOrigins (or give the endpoint in services.authServer.endpoints)", m.name, core.Redacted(u), originOf(m.v))
	}
	return nil
}

// overlaidDoc is the document without the endpoints the target file gives in their place: those are not used.
func overlaidDoc(doc *discoveryDocument, given target.Endpoints) *discoveryDocument {
	d := *doc
	for _, e := range []struct {
		given string
		found *string
	}{{given.Authorization, &d.AuthorizationEndpoint}, {given.Token, &d.TokenEndpoint}, {given.Userinfo, &d.UserinfoEndpoint},
		{given.JWKS, &d.JWKSURI}, {given.Introspection, &d.IntrospectionEndpoint}, {given.Revocation, &d.RevocationEndpoint}} {
		if e.given != "" {
			*e.found = ""
		}
	}
	return &d
}

// uaaEndpoints are UAA's paths under its base URL; its issuer is the token endpoint's address (spec 9.2).
func uaaEndpoints(base string) endpoints {
	return endpoints{Issuer: base + "/oauth/token", Endpoints: target.Endpoints{Authorization: base + "/oauth/authorize",
		Token: base + "/oauth/token", Userinfo: base + "/userinfo", JWKS: base + "/token_keys",
		Introspection: base + "/introspect", CheckToken: base + "/check_token"}}
}

// overlay returns base with every non-empty endpoint the target gives in its place; the issuer is never given.
func overlay(base endpoints, given target.Endpoints) endpoints {
	pick := func(b, g string) string { return cmp.Or(g, b) }
	return endpoints{Issuer: base.Issuer, Endpoints: target.Endpoints{Authorization: pick(base.Authorization, given.Authorization),
		Token: pick(base.Token, given.Token), Userinfo: pick(base.Userinfo, given.Userinfo), JWKS: pick(base.JWKS, given.JWKS),
		Introspection: pick(base.Introspection, given.Introspection), Revocation: pick(base.Revocation, given.Revocation),
		CheckToken: pick(base.CheckToken, given.CheckToken)}}
}

var errNoDocument = fmt.Errorf("no discovery document (404)")

// fetchDiscovery reads and checks a discovery document. When the issuer is known, the document's issuer must be
// exactly it (OpenID Connect Discovery 1.0, section 4.3).
func fetchDiscovery(ctx context.Context, client *resty.Client, docURL, issuer string) (*discoveryDocument, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	resp, err := client.R().SetContext(ctx).SetHeader("Accept", "application/json").Get(docURL)
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %w; is the server running?", err)
	}
	if resp.StatusCode() == http.StatusNotFound {
		return nil, errNoDocument
	}
	if resp.StatusCode() != http.StatusOK {
		return nil, fmt.Errorf("answered %d, want 200 with the OpenID Provider metadata", resp.StatusCode())
	}
	var doc discoveryDocument
	if err := json.Unmarshal(resp.Body(), &doc); err != nil {
		return nil, fmt.Errorf("is not a JSON object: %v", err)
	}
	var problems []string
	for _, m := range []struct{ name, v string }{{"issuer", doc.Issuer}, {"authorization_endpoint", doc.AuthorizationEndpoint},
		{"token_endpoint", doc.TokenEndpoint}} {
		if m.v == "" {
			problems = append(problems, m.name+" is missing")
		}
	}
	for _, m := range []struct{ name, v string }{{"authorization_endpoint", doc.AuthorizationEndpoint},
		{"token_endpoint", doc.TokenEndpoint}, {"userinfo_endpoint", doc.UserinfoEndpoint}, {"jwks_uri", doc.JWKSURI},
		{"introspection_endpoint", doc.IntrospectionEndpoint}, {"revocation_endpoint", doc.RevocationEndpoint}} {
		if u, err := url.Parse(m.v); m.v != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			problems = append(problems, fmt.Sprintf("%s %q is not an absolute http(s) URL", m.name, m.v))
		}
	}
	if issuer != "" && doc.Issuer != "" && doc.Issuer != issuer {
		problems = append(problems, fmt.Sprintf("issuer is %q, want exactly the issuer of the target, %q "+
			"(OpenID Connect Discovery 4.3)", doc.Issuer, issuer))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return &doc, nil
}

// probeCheckToken tells whether the check_token endpoint exists: any answer but 404, 405 or 501 to a POST
// without credentials means it does (the endpoint is free to refuse the caller).
func probeCheckToken(ctx context.Context, client *resty.Client, endpoint string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	resp, err := client.R().SetContext(ctx).SetFormData(map[string]string{"token": ""}).Post(endpoint)
	if err != nil {
		return fmt.Errorf("no check_token endpoint: %v", err)
	}
	switch resp.StatusCode() {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return fmt.Errorf("no check_token endpoint: %d at %s", resp.StatusCode(), endpoint)
	}
	return nil
}

// probeTimeout bounds one request of the preflight's look at the authorization server.
const probeTimeout = 10 * time.Second

// endpointKind names an endpoint at which clients authenticate.
type endpointKind int

const (
	tokenEndpoint endpointKind = iota
	revocationEndpoint
	introspectionEndpoint
)

// authMethodsAt are the client authentication methods the discovery document lists for an endpoint; nil
// when it lists none (or there is no document).
func (d *discoveryDocument) authMethodsAt(kind endpointKind) []string {
	if d == nil {
		return nil
	}
	switch kind {
	case revocationEndpoint:
		return d.RevocationAuthMethods
	case introspectionEndpoint:
		return d.IntrospectionAuthMethods
	}
	return d.TokenAuthMethods
}

// refreshScopes are the scopes asked for besides a scenario's own when it needs a refresh token: the target's,
// else offline_access where the discovery document lists it (OpenID Connect Core 11: servers issue refresh
// tokens for it, and many for nothing else).
func (s *Server) refreshScopes() []string {
	if as := s.services().AuthServer; as != nil && as.RefreshScopes != nil {
		return as.RefreshScopes
	}
	if s.discovery != nil && slices.Contains(s.discovery.ScopesSupported, "offline_access") {
		return []string{"offline_access"}
	}
	return nil
}

// issuesRefreshTokens tells whether the server says it has the refresh_token grant: its discovery document
// lists it, or (a UAA-shaped server without one) the spec's grants (2.1) include it.
func (s *Server) issuesRefreshTokens() bool {
	return s.discovery == nil || slices.Contains(s.discovery.GrantTypesSupported, "refresh_token")
}
