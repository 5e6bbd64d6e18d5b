package core

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/fortune-tck/fortune-tck/target"
)

// Origins is the run's origin policy: the only origins (scheme://host:port) the harness contacts, over HTTP,
// through its Go browser and through Chromium. They are the ones the target file declares (target.Origins:
// the services, their endpoints, allowedOrigins) and the servers the harness itself starts for a scenario (a
// configuration application's instances). The endpoints of the issuer's discovery document must be on them
// (the auth area checks them when it reads it). The redirect URIs of the clients are not among them: the
// browsers catch a redirect there and never follow it.
//
// A redirect to any other origin is never followed: it is a failure of the scenario that names where it went.
// The metadata service of a cloud machine, a service of the tester's network, a file on the tester's disk are
// out of a target's reach.
type Origins struct {
	mu      sync.RWMutex
	allowed []string        // origins, target.Origin's form
	addrs   map[string]bool // host:port of every allowed origin, and of the proxies the environment names
}

// NewOrigins is the policy of a target file.
func NewOrigins(t *target.Target) *Origins {
	o := &Origins{addrs: map[string]bool{}}
	for _, origin := range t.Origins() {
		o.add(origin)
	}
	return o
}

// Allow adds the origin of an absolute http(s) URL, such as a server the harness started; anything else is
// ignored.
func (o *Origins) Allow(raw string) {
	if origin, ok := target.Origin(raw); ok {
		o.add(origin)
	}
}

func (o *Origins) add(origin string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.allowed, origin) {
		o.allowed = append(o.allowed, origin)
		o.addrs[strings.SplitN(origin, "://", 2)[1]] = true
	}
}

// Allows tells whether the URL's origin is allowed.
func (o *Origins) Allows(u *url.URL) bool {
	origin, ok := target.OriginOf(u)
	if !ok {
		return false
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	return slices.Contains(o.allowed, origin)
}

// Check is nil for a URL of an allowed origin, and an *UndeclaredOriginError otherwise.
func (o *Origins) Check(u *url.URL) error {
	if o.Allows(u) {
		return nil
	}
	return &UndeclaredOriginError{URL: Redacted(u)}
}

// List is the allowed origins, in the order they were added.
func (o *Origins) List() []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return slices.Clone(o.allowed)
}

// allowsAddr tells whether a host:port the transport dials belongs to an allowed origin or a proxy.
func (o *Origins) allowsAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.addrs[net.JoinHostPort(strings.ToLower(host), port)]
}

// allowProxy lets the transport dial a proxy the environment names (HTTPS_PROXY and the like): the requests
// sent through it were checked against the policy before.
func (o *Origins) allowProxy(u *url.URL) {
	if u == nil || u.Hostname() == "" {
		return
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080"}[u.Scheme]
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.addrs[net.JoinHostPort(strings.ToLower(u.Hostname()), port)] = true
}

// UndeclaredOriginError is a request the harness did not send, or a redirect it did not follow, because its
// origin is not one the target file declares.
type UndeclaredOriginError struct {
	// URL is where the request would have gone, without its query and fragment.
	URL string
}

func (e *UndeclaredOriginError) Error() string {
	return fmt.Sprintf("%s: not an origin the target file declares, so the harness does not contact it "+
		"(a login application on an origin of its own is named in allowedOrigins; see docs/safety.md)", e.URL)
}

// Redacted is a URL without its user information, query and fragment, which may carry secrets.
func Redacted(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	s := c.String()
	if u.RawQuery != "" {
		s += "?…"
	}
	return s
}
