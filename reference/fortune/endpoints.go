package fortune

import (
	"context"

	"github.com/fortune-tck/fortune-tck/reference/internal/oidcdisco"
)

// endpoint is one address the service needs of the authorization server
// (an endpoint, or the issuer), found when first needed.
type endpoint func(ctx context.Context) (string, error)

func fixed(u string) endpoint { return func(context.Context) (string, error) { return u, nil } }

// endpoints find the authorization server's addresses for Options: an
// explicit URL first; else the discovery document of Issuer or DiscoveryURL;
// else UAA's paths under AuthURL.
//
// The discovery document is fetched on first use, not by New: the services
// of a stack may start in any order, and New has always made no call to the
// authorization server. A failed fetch makes the request a 503 (logged with
// the document's URL and the reason) and is retried a second later at the
// earliest, so a server that comes up late is found. Server.Discover fetches
// it at once, for callers that want a wrong issuer to stop the start (the
// command line does).
type endpoints struct {
	opts     Options
	provider *oidcdisco.Provider
}

func newEndpoints(opts Options) *endpoints {
	e := &endpoints{opts: opts}
	if opts.Issuer != "" || opts.DiscoveryURL != "" {
		e.provider = oidcdisco.Discovered(opts.HTTPClient, opts.DiscoveryURL, opts.Issuer, opts.Timeout)
	} else {
		e.provider = oidcdisco.Fixed(oidcdisco.UAA(opts.AuthURL))
	}
	return e
}

// get is the URL given explicitly, else the metadata field named.
func (e *endpoints) get(explicit, field string) endpoint {
	if explicit != "" {
		return fixed(explicit)
	}
	return func(ctx context.Context) (string, error) {
		m, err := e.provider.Metadata(ctx)
		if err != nil {
			return "", err
		}
		return m.Endpoint(field)
	}
}

// issuer is Options.Issuer, else the issuer the discovery document names
// (only DiscoveryURL given), else UAA's AuthURL/oauth/token.
func (e *endpoints) issuer() endpoint {
	if e.opts.Issuer != "" {
		return fixed(e.opts.Issuer)
	}
	return func(ctx context.Context) (string, error) {
		m, err := e.provider.Metadata(ctx)
		if err != nil {
			return "", err
		}
		return m.Issuer, nil
	}
}
