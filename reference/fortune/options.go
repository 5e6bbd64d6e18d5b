package fortune

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
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
	// ValidateJWT checks the token's signature, expiry, issuer and scope
	// locally, with the keys of /token_keys: no call per request.
	ValidateJWT Validation = "jwt"
)

// Options configures a Server. The zero value talks to the spec's
// authorization server as the demo fortune client.
type Options struct {
	// AuthURL is the authorization server's base URL; check_token and
	// token_keys are under it, and the token issuer is AuthURL/oauth/token.
	AuthURL string
	// ClientID and ClientSecret are the fortune client's credentials for
	// check_token (a client with the authority authz.resource).
	ClientID, ClientSecret string
	// Validation is ValidateCheckToken (the default) or ValidateJWT.
	Validation Validation
	// CacheSize > 0 caches that many check_token answers; 0 disables the
	// cache. Only with ValidateCheckToken. See the package doc for the
	// revocation trade-off.
	CacheSize int
	// CacheTTL bounds how long a cached answer is used (DefaultCacheTTL).
	CacheTTL time.Duration
	// KeyRefetchInterval is the least time between two fetches of
	// token_keys prompted by unknown kids (DefaultKeyRefetchInterval).
	KeyRefetchInterval time.Duration
	// Timeout bounds each call to the authorization server (DefaultTimeout).
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
	o.AuthURL = strings.TrimSuffix(cmp.Or(o.AuthURL, DefaultAuthURL), "/")
	if err := checkBaseURL(o.AuthURL); err != nil {
		return o, err
	}
	o.ClientID = cmp.Or(o.ClientID, DefaultClientID)
	o.ClientSecret = cmp.Or(o.ClientSecret, DefaultClientSecret)
	o.Validation = cmp.Or(o.Validation, ValidateCheckToken)
	switch {
	case o.Validation != ValidateCheckToken && o.Validation != ValidateJWT:
		return o, fmt.Errorf("fortune: unknown token validation %q; valid: %s, %s", o.Validation, ValidateCheckToken, ValidateJWT)
	case o.CacheSize < 0:
		return o, fmt.Errorf("fortune: cache size %d; want 0 (no cache) or more", o.CacheSize)
	case o.CacheSize > 0 && o.Validation != ValidateCheckToken:
		return o, errors.New("fortune: the cache keeps check_token answers; JWT validation makes no call to cache")
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

// noRedirects returns a copy of c (or a new client) that does not follow
// redirects: the answer of check_token or token_keys must come from the
// authorization server itself.
func noRedirects(c *http.Client) *http.Client {
	copied := &http.Client{}
	if c != nil {
		*copied = *c
	}
	copied.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return copied
}
