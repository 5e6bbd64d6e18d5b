package routing

import (
	"crypto/tls"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

// Table is one configuration, ready to route. It is never modified once
// built: a reload builds a new one and swaps it in, so a request in flight
// keeps the table it started with.
type Table struct {
	ports map[int]*Port
	src   *source // what Update needs of the build
}

// Ports are the served ports, in increasing order.
func (t *Table) Ports() []*Port {
	ps := make([]*Port, 0, len(t.ports))
	for _, p := range t.ports {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b *Port) int { return a.Number - b.Number })
	return ps
}

// Port returns what port number serves (the number in the manifests);
// nil when no listener has it.
func (t *Table) Port(number int) *Port { return t.ports[number] }

// Port is every listener that shares one port number.
type Port struct {
	Number   int
	Protocol string // "HTTP" or "HTTPS"
	// Listeners name the listeners, "Gateway ns/name listener l", for logs.
	Listeners []string
	// TLS is the server configuration of an HTTPS port; nil for HTTP.
	TLS *tls.Config

	certs   []*listenerCerts
	exact   map[string]*vhost
	wild    []*vhost // most specific first
	any     *vhost
	lookup  bool // some route matches query parameters
	queries int  // how many
}

// vhost is every route served on one hostname of a port.
type vhost struct {
	hostname string // "*" for any host
	routes   []*Route
}

// Route is one match of one rule of an HTTPRoute, on one hostname: where
// a request that matches goes.
type Route struct {
	// Name is Envoy Gateway's route name:
	// httproute/<namespace>/<name>/rule/<i>/match/<j>/<host with _ for .>.
	Name string
	// Cluster is Envoy Gateway's upstream cluster name:
	// httproute/<namespace>/<name>/rule/<i>.
	Cluster string
	// Limits are the rate limits of the route; nil when none.
	Limits   *ratelimit.Route
	Backends *Backends

	route    *manifest.HTTPRoute
	rule, at int
	match    *manifest.RouteMatch
}

// Lookup returns the route of r on port; nil when none matches (404).
func (p *Port) Lookup(r *http.Request) *Route {
	v := p.vhost(requestHost(r.Host))
	if v == nil {
		return nil
	}
	var q map[string][]string
	if p.lookup {
		q = r.URL.Query()
	}
	for _, rt := range v.routes {
		if matches(rt.match, r, q) {
			return rt
		}
	}
	return nil
}

// vhost picks the most specific hostname that includes host.
func (p *Port) vhost(host string) *vhost {
	if v := p.exact[host]; v != nil {
		return v
	}
	for _, v := range p.wild {
		if hostMatches(v.hostname, host) {
			return v
		}
	}
	return p.any
}

// matches tells whether every condition of m holds for r.
func matches(m *manifest.RouteMatch, r *http.Request, query map[string][]string) bool {
	if m.Method != "" && m.Method != r.Method {
		return false
	}
	if !pathMatches(m, r.URL.Path) {
		return false
	}
	for _, h := range m.Headers {
		values := r.Header.Values(h.Name)
		if len(values) == 0 || !valueMatches(h, strings.Join(values, ",")) {
			return false
		}
	}
	for _, qm := range m.Query {
		values := query[qm.Name]
		if len(values) == 0 || !valueMatches(qm, values[0]) {
			return false
		}
	}
	return true
}

func pathMatches(m *manifest.RouteMatch, path string) bool {
	switch m.PathType {
	case manifest.PathExact:
		return path == m.PathValue
	case manifest.PathRegex:
		return m.PathRE.MatchString(path)
	default:
		return manifest.PrefixMatch(m.PathValue, path)
	}
}

func valueMatches(m *manifest.ValueMatch, v string) bool {
	if m.RE != nil {
		return m.RE.MatchString(v)
	}
	return v == m.Value
}

// precedence orders the routes of a vhost, the first match winning.
func precedence(a, b *Route) int {
	ka, kb := pathRank(a.match), pathRank(b.match)
	if ka != kb {
		return kb - ka
	}
	if la, lb := len(a.match.PathValue), len(b.match.PathValue); la != lb {
		return lb - la
	}
	if ma, mb := a.match.Method != "", b.match.Method != ""; ma != mb {
		if ma {
			return -1
		}
		return 1
	}
	if ha, hb := len(a.match.Headers), len(b.match.Headers); ha != hb {
		return hb - ha
	}
	if qa, qb := len(a.match.Query), len(b.match.Query); qa != qb {
		return qb - qa
	}
	if c := compareCreated(a.route.Created, b.route.Created); c != 0 {
		return c
	}
	if c := strings.Compare(a.route.ID(), b.route.ID()); c != 0 {
		return c
	}
	if a.rule != b.rule {
		return a.rule - b.rule
	}
	return a.at - b.at
}

// compareCreated orders creation times, oldest first. A resource without
// metadata.creationTimestamp (the usual case in files) counts as created
// at load, after any that has one.
func compareCreated(a, b time.Time) int {
	switch {
	case a.IsZero() && b.IsZero():
		return 0
	case a.IsZero():
		return 1
	case b.IsZero():
		return -1
	}
	return a.Compare(b)
}

// pathRank is Envoy Gateway's order of path match types.
func pathRank(m *manifest.RouteMatch) int {
	switch m.PathType {
	case manifest.PathExact:
		return 3
	case manifest.PathRegex:
		return 2
	default:
		return 1
	}
}
