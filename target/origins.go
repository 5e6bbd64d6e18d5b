package target

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// An origin is scheme://host:port (RFC 6454): the unit the harness decides about before it contacts anything.
// The harness contacts only origins the target file declares (Origins); a login application on an origin of
// its own, as Hydra's is, is named in allowedOrigins.

// Origin is the origin of an absolute http(s) URL, written scheme://host:port with the scheme and host in lower
// case and the port always given; ok is false for anything else (a path, another scheme, no host).
func Origin(raw string) (origin string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	return OriginOf(u)
}

// OriginOf is Origin for a parsed URL.
func OriginOf(u *url.URL) (string, bool) {
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// Origins are the origins the target file names: the URLs of its services and their endpoints, the
// configuration repository when it is reached over http(s), and allowedOrigins. Where the authorization
// server's discovery document may name more (on the issuer's host), the harness adds them when it reads it;
// the redirect URIs of the clients are not among them: the harness catches redirects there and never
// contacts them.
func (t *Target) Origins() []string {
	var urls []string
	s := &t.Services
	if as := s.AuthServer; as != nil {
		e := as.Endpoints
		urls = append(urls, as.URL, as.Issuer, as.Discovery, e.Authorization, e.Token, e.Userinfo, e.JWKS,
			e.Introspection, e.Revocation, e.CheckToken)
	}
	for _, svc := range []*Service{s.Fortune, s.Greeting} {
		if svc != nil {
			urls = append(urls, svc.URL)
		}
	}
	if cs := s.ConfigServer; cs != nil {
		urls = append(urls, cs.URL, cs.Repository.URI)
	}
	if g := s.Gateway; g != nil {
		for _, inst := range g.Instances {
			urls = append(urls, inst.HTTP, inst.HTTPS)
		}
	}
	urls = append(urls, t.AllowedOrigins...)
	var out []string
	seen := map[string]bool{}
	for _, u := range urls {
		if o, ok := Origin(u); ok && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// checkOrigins checks allowedOrigins: each an http(s) origin, scheme://host[:port] and nothing more.
func checkOrigins(origins []string) []string {
	var problems []string
	for i, raw := range origins {
		field := fmt.Sprintf("allowedOrigins[%d]", i)
		u, err := url.Parse(raw)
		switch {
		case err != nil || u.Scheme == "" || u.Host == "":
			problems = append(problems, fmt.Sprintf("%s: %q is not an origin: give scheme://host[:port], e.g. http://127.0.0.1:9120", field, raw))
		case u.Scheme != "http" && u.Scheme != "https":
			problems = append(problems, fmt.Sprintf("%s: %q: the scheme %s is not allowed; the harness contacts http and https origins only", field, raw, u.Scheme))
		case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
			problems = append(problems, fmt.Sprintf("%s: %q is a URL, not an origin: give scheme://host[:port] without user, path, query or fragment", field, raw))
		case u.Port() == "" && strings.HasSuffix(u.Host, ":"):
			problems = append(problems, fmt.Sprintf("%s: %q has an empty port", field, raw))
		}
	}
	return problems
}
