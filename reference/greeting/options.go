package greeting

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

// Defaults used when Options leaves a field empty: the spec's addresses and
// the demo's greeting client.
const (
	DefaultURL          = "http://localhost:8100"
	DefaultAuthURL      = "http://localhost:9000"
	DefaultFortuneURL   = "http://localhost:8787"
	DefaultClientID     = "greeting"
	DefaultClientSecret = "greeting-secret"
	DefaultTimeout      = 10 * time.Second
)

// DefaultScopes are the scopes the client asks for (spec 5.1).
var DefaultScopes = []string{"openid", "fortunes.read"}

// Options configures a Server. The zero value is the demo's greeting client
// on the spec's default addresses.
type Options struct {
	// URL is the client's external base URL, without a path; its root
	// (URL + "/") is the redirect URI registered at the authorization
	// server. An https URL makes the session cookie Secure.
	URL string
	// AuthURL is a UAA-shaped authorization server's base URL:
	// /oauth/authorize, /oauth/token, /userinfo and /oauth/revoke are under
	// it, and the ID token's issuer is AuthURL/oauth/token. Used when
	// neither Issuer nor DiscoveryURL is set (DefaultAuthURL when empty).
	AuthURL string
	// Issuer is a standard OpenID Connect server's issuer: the endpoints
	// come from its discovery document, {Issuer}/.well-known/openid-configuration,
	// which must name exactly this issuer, and ID tokens must be signed by
	// a key of its jwks_uri and carry it as iss.
	Issuer string
	// DiscoveryURL is the discovery document's address when it is not at
	// Issuer's well-known place; without Issuer, the issuer is the one the
	// document names.
	DiscoveryURL string
	// FortuneURL is the fortune service's base URL; the page GETs its root.
	FortuneURL string
	// ClientID and ClientSecret are the client's credentials, sent as form
	// fields to the token endpoint (client authentication "form").
	ClientID, ClientSecret string
	// Scopes are requested at sign-in (DefaultScopes).
	Scopes []string
	// Timeout bounds each call to the authorization server or the fortune
	// service, the fetch of the discovery document included
	// (DefaultTimeout).
	Timeout time.Duration
	// HTTPClient makes those calls; it never follows redirects here.
	HTTPClient *http.Client
	// Logger receives sign-ins, failures of the services called and debug
	// request logs; nil discards them.
	Logger *slog.Logger
}

// withDefaults fills empty fields and checks the URLs.
func (o Options) withDefaults() (Options, error) {
	o.URL = strings.TrimSuffix(cmp.Or(o.URL, DefaultURL), "/")
	discovered := o.Issuer != "" || o.DiscoveryURL != ""
	if discovered && o.AuthURL != "" {
		return o, errors.New("greeting: give the authorization server's base URL (a UAA-shaped server) or its issuer / discovery URL (a standard one), not both")
	}
	if !discovered {
		o.AuthURL = strings.TrimSuffix(cmp.Or(o.AuthURL, DefaultAuthURL), "/")
		if err := checkURL("the authorization server URL", o.AuthURL, true); err != nil {
			return o, err
		}
	}
	for _, u := range []struct{ name, value string }{{"issuer", o.Issuer}, {"discovery URL", o.DiscoveryURL}} {
		if u.value == "" {
			continue
		}
		if err := oidcdisco.CheckURL(u.value); err != nil {
			return o, fmt.Errorf("greeting: invalid %s: %w", u.name, err)
		}
	}
	o.FortuneURL = strings.TrimSuffix(cmp.Or(o.FortuneURL, DefaultFortuneURL), "/")
	if err := checkURL("the client's URL", o.URL, false); err != nil {
		return o, err
	}
	if err := checkURL("the fortune service URL", o.FortuneURL, true); err != nil {
		return o, err
	}
	o.ClientID = cmp.Or(o.ClientID, DefaultClientID)
	o.ClientSecret = cmp.Or(o.ClientSecret, DefaultClientSecret)
	if len(o.Scopes) == 0 {
		o.Scopes = slices.Clone(DefaultScopes)
	}
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	if o.Timeout < 0 {
		return o, fmt.Errorf("greeting: negative timeout %v", o.Timeout)
	}
	o.HTTPClient = noRedirects(o.HTTPClient)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// checkURL accepts http(s)://host[:port], with a path only when pathOK:
// the client itself answers at its root.
func checkURL(what, raw string, pathOK bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil || (!pathOK && u.Path != "") {
		want := "http(s)://host[:port]"
		if pathOK {
			want += "[/path]"
		}
		return fmt.Errorf("greeting: invalid %s %q; want %s", what, raw, want)
	}
	return nil
}

// noRedirects returns a copy of c (or a new client) that does not follow
// redirects: tokens and fortunes must come from the servers configured.
func noRedirects(c *http.Client) *http.Client {
	copied := &http.Client{}
	if c != nil {
		*copied = *c
	}
	copied.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return copied
}
