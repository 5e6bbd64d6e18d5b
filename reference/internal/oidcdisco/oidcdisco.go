// Package oidcdisco finds an authorization server's endpoints for the
// reference fortune service and greeting client: from an OpenID Provider
// metadata document (OpenID Connect Discovery 1.0, RFC 8414), or, for a
// UAA-shaped server without discovery, from UAA's fixed paths under a base
// URL.
package oidcdisco

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// WellKnownPath is what OpenID Connect Discovery 4 appends to the issuer.
const WellKnownPath = "/.well-known/openid-configuration"

// maxDocumentBytes bounds what is read of a discovery document; real ones
// are a few KiB.
const maxDocumentBytes = 256 << 10

// Metadata are the endpoints of an authorization server and its issuer.
// An endpoint the server does not have is "".
type Metadata struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	UserinfoEndpoint      string `json:"userinfo_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
	RevocationEndpoint    string `json:"revocation_endpoint"`
	// CheckTokenEndpoint is UAA's /check_token; no discovery document
	// lists it.
	CheckTokenEndpoint string `json:"-"`
	// Source says where the metadata came from, for error messages: the
	// discovery document's URL, or "UAA paths under BASE".
	Source string `json:"-"`
}

// WellKnown is the discovery URL of an issuer: the issuer without a
// trailing slash, then WellKnownPath (OpenID Connect Discovery 4.1).
func WellKnown(issuer string) string {
	return strings.TrimSuffix(issuer, "/") + WellKnownPath
}

// UAA is the metadata of a UAA-shaped server at base, which publishes no
// discovery document (or whose document is not wanted): its fixed paths,
// and the issuer base/oauth/token.
func UAA(base string) *Metadata {
	base = strings.TrimSuffix(base, "/")
	return &Metadata{
		Issuer:                base + "/oauth/token",
		AuthorizationEndpoint: base + "/oauth/authorize",
		TokenEndpoint:         base + "/oauth/token",
		UserinfoEndpoint:      base + "/userinfo",
		JWKSURI:               base + "/token_keys",
		IntrospectionEndpoint: base + "/introspect",
		RevocationEndpoint:    base + "/oauth/revoke",
		CheckTokenEndpoint:    base + "/check_token",
		Source:                "UAA paths under " + base,
	}
}

// Error is a discovery document that cannot be used: the URL it was read
// from, the field at fault ("" for the document as a whole) and why.
type Error struct {
	URL, Field, Problem string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return "discovery document at " + e.URL + ": " + e.Problem
	}
	return "discovery document at " + e.URL + ": " + e.Field + " " + e.Problem
}

// Fetch reads and checks the discovery document at discoveryURL (""
// means WellKnown(issuer)). When issuer is not "", the document's issuer
// must be exactly it (OpenID Connect Discovery 4.3: a document that names
// another issuer is not this server's). Every endpoint the document lists
// must be an absolute http(s) URL. Which endpoints a caller needs (RFC 8414
// makes all but the token endpoint optional), Endpoint checks.
// client should not follow redirects: the document must come from the
// server asked.
func Fetch(ctx context.Context, client *http.Client, discoveryURL, issuer string) (*Metadata, error) {
	if discoveryURL == "" {
		if issuer == "" {
			return nil, fmt.Errorf("discovery: neither an issuer nor a discovery URL")
		}
		discoveryURL = WellKnown(issuer)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, discoveryURL, nil)
	if err != nil {
		return nil, &Error{URL: discoveryURL, Problem: "cannot be requested: " + err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("discovery document at %s: %w", discoveryURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		problem := fmt.Sprintf("answered %d, want 200", resp.StatusCode)
		if loc := resp.Header.Get("Location"); loc != "" {
			problem += " (a redirect to " + loc + "; give the issuer exactly as the server names itself)"
		}
		return nil, &Error{URL: discoveryURL, Problem: problem}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes))
	if err != nil {
		return nil, fmt.Errorf("discovery document at %s: reading: %w", discoveryURL, err)
	}
	var m Metadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, &Error{URL: discoveryURL, Problem: "is not an OpenID Provider metadata JSON object: " + err.Error()}
	}
	m.Source = discoveryURL
	if err := m.check(issuer); err != nil {
		return nil, err
	}
	return &m, nil
}

// check validates a fetched document.
func (m *Metadata) check(issuer string) error {
	fail := func(field, problem string) error { return &Error{URL: m.Source, Field: field, Problem: problem} }
	switch {
	case m.Issuer == "":
		return fail("issuer", "missing")
	case issuer != "" && m.Issuer != issuer:
		hint := ""
		if strings.TrimSuffix(m.Issuer, "/") == strings.TrimSuffix(issuer, "/") {
			hint = " (the trailing slash matters: tokens carry the issuer exactly)"
		}
		return fail("issuer", fmt.Sprintf("is %q, not the issuer asked for, %q%s", m.Issuer, issuer, hint))
	}
	if err := absolute(m.Issuer); err != nil {
		return fail("issuer", err.Error())
	}
	if u, _ := url.Parse(m.Issuer); u.RawQuery != "" {
		return fail("issuer", "has a query: OpenID Connect issuers have none")
	}
	for _, f := range m.fields() {
		if *f.value == "" {
			continue
		}
		if err := absolute(*f.value); err != nil {
			return fail(f.name, err.Error())
		}
	}
	return nil
}

type field struct {
	name  string
	value *string
}

func (m *Metadata) fields() []field {
	return []field{
		{"authorization_endpoint", &m.AuthorizationEndpoint},
		{"token_endpoint", &m.TokenEndpoint},
		{"userinfo_endpoint", &m.UserinfoEndpoint},
		{"jwks_uri", &m.JWKSURI},
		{"introspection_endpoint", &m.IntrospectionEndpoint},
		{"revocation_endpoint", &m.RevocationEndpoint},
		{"check_token_endpoint", &m.CheckTokenEndpoint},
	}
}

// absolute accepts an absolute http(s) URL with a host and no fragment.
func absolute(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an absolute http(s) URL", raw)
	case u.Host == "":
		return fmt.Errorf("%q has no host", raw)
	case u.Fragment != "":
		return fmt.Errorf("%q has a fragment", raw)
	}
	return nil
}

// CheckURL reports whether raw is an absolute http(s) URL without a
// fragment, for URLs given on a command line.
func CheckURL(raw string) error { return absolute(raw) }

// Endpoint returns the endpoint named by its metadata field name (e.g.
// "token_endpoint"), or an error naming the source and the field when the
// server has none.
func (m *Metadata) Endpoint(name string) (string, error) {
	for _, f := range m.fields() {
		if f.name == name {
			if *f.value == "" {
				return "", &Error{URL: m.Source, Field: name, Problem: "missing"}
			}
			return *f.value, nil
		}
	}
	return "", fmt.Errorf("oidcdisco: no metadata field %q", name)
}

// retryAfterFailure is the least time between two fetches after a failed
// one: a server that is down is asked about once a second, not once per
// request.
const retryAfterFailure = time.Second

// Provider hands out an authorization server's metadata: fixed ones, or a
// discovery document fetched on first use and kept. A failed fetch is
// retried on a later use, at most once per second; until then its error is
// returned again. Safe for concurrent use.
type Provider struct {
	discoveryURL, issuer string
	client               *http.Client
	timeout              time.Duration
	now                  func() time.Time

	mu        sync.Mutex
	meta      *Metadata
	lastErr   error
	lastFetch time.Time
}

// Fixed is a Provider of m.
func Fixed(m *Metadata) *Provider { return &Provider{meta: m} }

// Discovered is a Provider that fetches the document at discoveryURL (""
// for WellKnown(issuer)) with client, each fetch bounded by timeout, and
// checks it as Fetch does.
func Discovered(client *http.Client, discoveryURL, issuer string, timeout time.Duration) *Provider {
	return &Provider{discoveryURL: discoveryURL, issuer: issuer, client: client, timeout: timeout, now: time.Now}
}

// Metadata returns the metadata, fetching them when not yet known. The
// fetch serves every waiting caller, so one caller going away does not
// cancel it; the timeout bounds it.
func (p *Provider) Metadata(ctx context.Context) (*Metadata, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.meta != nil {
		return p.meta, nil
	}
	if p.lastErr != nil && p.now().Before(p.lastFetch.Add(retryAfterFailure)) {
		return nil, p.lastErr
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	p.lastFetch = p.now()
	m, err := Fetch(ctx, p.client, p.discoveryURL, p.issuer)
	if err != nil {
		p.lastErr = err
		return nil, err
	}
	p.meta, p.lastErr = m, nil
	return m, nil
}
