package fortune

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/oidcdisco"
)

// Defaults used when Options leaves a field empty: the spec's authorization
// server and the demo's fortune client.
const (
	DefaultAuthURL            = "http://localhost:9000"
	DefaultClientID           = "fortune"
	DefaultClientSecret       = "fortune-secret"
	DefaultCacheTTL           = 30 * time.Second
	DefaultKeyRefetchInterval = 30 * time.Second
	DefaultTimeout            = 5 * time.Second
)

// Fixed values of the service (spec 4.2).
const (
	RequiredScope = "fortunes.read" // the scope a token needs for a fortune
	Realm         = "fortunes"      // the realm of its Bearer challenges: the resource id
)

// Validation is how the service validates tokens.
type Validation string

// The validation methods.
const (
	// ValidateCheckToken asks the authorization server's /check_token for
	// every token (spec 5.3): revocation shows at once.
	ValidateCheckToken Validation = "check_token"
	// ValidateIntrospection asks the authorization server's RFC 7662
	// introspection endpoint for every token: the standard counterpart of
	// check_token.
	ValidateIntrospection Validation = "introspection"
	// ValidateJWT checks the token's signature, expiry, issuer and scope
	// locally, with the keys of the JWKS (UAA: /token_keys): no call per
	// request.
	ValidateJWT Validation = "jwt"
)

// Validations are the valid values of Options.Validation.
var Validations = []Validation{ValidateCheckToken, ValidateIntrospection, ValidateJWT}

// Options configures a Server. The zero value talks to the spec's
// authorization server as the demo fortune client.
type Options struct {
	// AuthURL is the base URL of a UAA-shaped authorization server:
	// check_token, introspect and token_keys are under it, and the token
	// issuer is AuthURL/oauth/token. Used when neither Issuer nor
	// DiscoveryURL is set (DefaultAuthURL when empty).
	AuthURL string
	// Issuer is a standard OpenID Connect server's issuer: the endpoints
	// come from its discovery document, {Issuer}/.well-known/openid-configuration,
	// which must name exactly this issuer; JWTs must carry it as iss.
	Issuer string
	// DiscoveryURL is the discovery document's address when it is not at
	// Issuer's well-known place; without Issuer, the issuer is the one the
	// document names.
	DiscoveryURL string
	// CheckTokenURL, IntrospectionURL and JWKSURL replace the endpoint of
	// that name, for servers without discovery (or with a wrong document).
	// With Issuer or DiscoveryURL, ValidateCheckToken needs CheckTokenURL:
	// no discovery document lists UAA's check_token.
	CheckTokenURL, IntrospectionURL, JWKSURL string
	// Audience, when set, must be in a valid token's aud (a string or an
	// array), whatever the validation.
	Audience string
	// ClientID and ClientSecret are the fortune client's credentials for
	// check_token (a client with the authority authz.resource) or
	// introspection, sent in HTTP Basic.
	ClientID, ClientSecret string
	// Validation is one of Validations; ValidateCheckToken when empty.
	Validation Validation
	// CacheSize > 0 caches that many check_token or introspection answers;
	// 0 disables the cache. Not with ValidateJWT. See the package doc for
	// the revocation trade-off.
	CacheSize int
	// CacheTTL bounds how long a cached answer is used (DefaultCacheTTL).
	CacheTTL time.Duration
	// KeyRefetchInterval is the least time between two fetches of
	// token_keys prompted by unknown kids (DefaultKeyRefetchInterval).
	KeyRefetchInterval time.Duration
	// Timeout bounds each call to the authorization server, the fetch of
	// the discovery document included (DefaultTimeout).
	Timeout time.Duration
	// HTTPClient talks to the authorization server; it never follows
	// redirects here (a redirect is a misconfigured AuthURL).
	HTTPClient *http.Client
	// Logger receives why tokens could not be checked, and debug request
	// logs; nil discards them.
	Logger *slog.Logger
}

// withDefaults fills empty fields and checks the others.
func (o Options) withDefaults() (Options, error) {
	discovered := o.Issuer != "" || o.DiscoveryURL != ""
	if discovered && o.AuthURL != "" {
		return o, errors.New("fortune: give the authorization server's base URL (a UAA-shaped server) or its issuer / discovery URL (a standard one), not both")
	}
	if !discovered {
		o.AuthURL = strings.TrimSuffix(cmp.Or(o.AuthURL, DefaultAuthURL), "/")
		if err := checkBaseURL(o.AuthURL); err != nil {
			return o, err
		}
	}
	for _, u := range []struct{ name, value string }{
		{"issuer", o.Issuer}, {"discovery URL", o.DiscoveryURL}, {"check_token URL", o.CheckTokenURL},
		{"introspection URL", o.IntrospectionURL}, {"JWKS URL", o.JWKSURL},
	} {
		if u.value == "" {
			continue
		}
		if err := oidcdisco.CheckURL(u.value); err != nil {
			return o, fmt.Errorf("fortune: invalid %s: %w", u.name, err)
		}
	}
	o.ClientID = cmp.Or(o.ClientID, DefaultClientID)
	o.ClientSecret = cmp.Or(o.ClientSecret, DefaultClientSecret)
	o.Validation = cmp.Or(o.Validation, ValidateCheckToken)
	switch {
	case !slices.Contains(Validations, o.Validation):
		return o, fmt.Errorf("fortune: unknown token validation %q; valid: %s, %s, %s", o.Validation, ValidateCheckToken, ValidateIntrospection, ValidateJWT)
	case o.Validation == ValidateCheckToken && discovered && o.CheckTokenURL == "":
		return o, errors.New("fortune: check_token validation with an issuer or discovery URL needs the check_token URL too " +
			"(discovery documents do not list UAA's check_token); a standard server validates by introspection or jwt")
	case o.CacheSize < 0:
		return o, fmt.Errorf("fortune: cache size %d; want 0 (no cache) or more", o.CacheSize)
	case o.CacheSize > 0 && o.Validation == ValidateJWT:
		return o, errors.New("fortune: the cache keeps check_token and introspection answers; JWT validation makes no call to cache")
	case o.CacheTTL < 0 || o.KeyRefetchInterval < 0 || o.Timeout < 0:
		return o, errors.New("fortune: durations must not be negative")
	}
	o.CacheTTL = cmp.Or(o.CacheTTL, DefaultCacheTTL)
	o.KeyRefetchInterval = cmp.Or(o.KeyRefetchInterval, DefaultKeyRefetchInterval)
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.HTTPClient = noRedirects(o.HTTPClient)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("fortune: invalid authorization server URL %q; want http(s)://host[:port][/path]", raw)
	}
	return nil
}

// maxIdlePerHost is how many idle connections to the authorization server
// are kept. Go's default transport keeps 2: with more concurrent requests
// than that, every check_token call beyond the second dialled a new
// connection and left it in TIME_WAIT, which cost more than the call.
const maxIdlePerHost = 128

// newTransport is the default transport with connections kept for reuse.
// Not reference/internal/h1: with it, check_token without a cache was not
// 25 % faster under make load (docs/performance.md).
func newTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = maxIdlePerHost
	t.MaxIdleConnsPerHost = maxIdlePerHost
	return t
}

// noRedirects returns a copy of c (or a new client with newTransport) that does not follow
// redirects: the answer of check_token or token_keys must come from the
// authorization server itself.
func noRedirects(c *http.Client) *http.Client {
	copied := &http.Client{Transport: newTransport()}
	if c != nil {
		*copied = *c
	}
	copied.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return copied
}
