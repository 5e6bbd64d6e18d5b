package routing

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

// Options configure Build.
type Options struct {
	// SelfSigned returns the certificate of an HTTPS listener that names
	// no certificateRefs, for its hostname (empty: any). Required when
	// such a listener exists.
	SelfSigned func(hostname string) (*tls.Certificate, error)
}

// Build makes the routing table of set. An error (manifest.Errors) names
// what cannot be served; notices name what is not acted upon.
func Build(set *manifest.Set, o Options) (*Table, []manifest.Notice, error) {
	b := &builder{
		o:        o,
		table:    &Table{ports: map[int]*Port{}},
		gateways: index(set.Gateways, func(g *manifest.Gateway) *manifest.Meta { return &g.Meta }),
		routes:   index(set.Routes, func(r *manifest.HTTPRoute) *manifest.Meta { return &r.Meta }),
		backends: index(set.Backends, func(b *manifest.Backend) *manifest.Meta { return &b.Meta }),
		secrets:  index(set.Secrets, func(s *manifest.Secret) *manifest.Meta { return &s.Meta }),
		placed:   map[int][]placed{},
		rules:    map[string]*Backends{},
		seen:     map[string]bool{},
	}
	for _, g := range set.Gateways {
		for _, l := range g.Listeners {
			b.listener(g, l)
		}
	}
	b.indexPolicies(set.Policies)
	src := b.source(set)
	for _, r := range set.Routes {
		n := len(b.notices)
		for _, p := range r.Parents {
			b.attach(r, p)
		}
		if len(b.notices) > n {
			src.byRoute[r] = b.notices[n:len(b.notices):len(b.notices)]
		}
	}
	if len(b.errs) > 0 {
		return nil, b.notices, b.errs
	}
	b.finish()
	b.table.src = src
	return b.table, b.notices, nil
}

type builder struct {
	o        Options
	table    *Table
	gateways map[string]*manifest.Gateway
	routes   map[string]*manifest.HTTPRoute
	backends map[string]*manifest.Backend
	secrets  map[string]*manifest.Secret
	placed   map[int][]placed
	policies policies
	rules    map[string]*Backends // by route ID and rule index
	seen     map[string]bool      // routes placed, against duplicates
	errs     manifest.Errors
	notices  []manifest.Notice
}

// placed is a listener on its port.
type placed struct {
	gw *manifest.Gateway
	l  *manifest.Listener
}

func index[T any](items []T, meta func(T) *manifest.Meta) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		m[meta(it).ID()] = it
	}
	return m
}

func (b *builder) errorf(m *manifest.Meta, field string, line int, format string, args ...any) {
	b.errs = append(b.errs, &manifest.Error{File: m.File, Line: line, Resource: m.String(), Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (b *builder) notice(m *manifest.Meta, field string, line int, msg string) {
	b.notices = append(b.notices, manifest.Notice{File: m.File, Line: line, Resource: m.String(), Field: field, Msg: msg})
}

// listener places one listener on its port, refusing conflicts.
func (b *builder) listener(g *manifest.Gateway, l *manifest.Listener) {
	for _, o := range b.placed[l.Port] {
		switch {
		case o.l.Protocol != l.Protocol:
			b.errorf(&g.Meta, l.Field+".protocol", l.Line, "port %d is already served over %s by %s listener %q; listeners sharing a port must share the protocol",
				l.Port, o.l.Protocol, o.gw, o.l.Name)
			return
		case o.l.Hostname == l.Hostname:
			b.errorf(&g.Meta, l.Field+".hostname", l.Line, "port %d with hostname %q is already served by %s listener %q",
				l.Port, l.Hostname, o.gw, o.l.Name)
			return
		}
	}
	b.placed[l.Port] = append(b.placed[l.Port], placed{g, l})
	p := b.port(l.Port, l.Protocol)
	p.Listeners = append(p.Listeners, fmt.Sprintf("%s listener %s", g, l.Name))
	if l.Protocol == "HTTPS" {
		if c := b.certificates(g, l); c != nil {
			p.certs = append(p.certs, c)
		}
	}
}

func (b *builder) port(n int, protocol string) *Port {
	p := b.table.ports[n]
	if p == nil {
		p = &Port{Number: n, Protocol: protocol, exact: map[string]*vhost{}}
		b.table.ports[n] = p
	}
	return p
}

// attach places route r on the listeners parent names, with a notice when
// none admits it.
func (b *builder) attach(r *manifest.HTTPRoute, parent *manifest.ParentRef) {
	if parent.Group != manifest.GatewayAPIGroup || parent.Kind != "Gateway" {
		b.notice(&r.Meta, parent.Field, parent.Line, fmt.Sprintf("parent kind %s (group %q) is not served; only Gateway parents are", parent.Kind, parent.Group))
		return
	}
	ns := cmp.Or(parent.Namespace, r.Namespace)
	g := b.gateways[ns+"/"+parent.Name]
	if g == nil {
		b.notice(&r.Meta, parent.Field+".name", parent.Line, fmt.Sprintf("Gateway %s/%s not found; the route is not attached to it", ns, parent.Name))
		return
	}
	attached := false
	for _, l := range g.Listeners {
		if !admits(g, l, r, parent) {
			continue
		}
		for _, host := range effectiveHostnames(l.Hostname, r.Hostnames) {
			attached = true
			b.place(g, l, r, host)
		}
	}
	if !attached {
		b.notice(&r.Meta, parent.Field, parent.Line, fmt.Sprintf("no listener of %s admits the route (sectionName, port, allowedRoutes or hostnames); it is not attached", g))
	}
}

// admits tells whether listener l of g takes route r through parent.
func admits(g *manifest.Gateway, l *manifest.Listener, r *manifest.HTTPRoute, parent *manifest.ParentRef) bool {
	switch {
	case parent.SectionName != "" && parent.SectionName != l.Name,
		parent.Port != 0 && parent.Port != l.Port,
		l.NoHTTPRoutes,
		!l.AllNamespaces && r.Namespace != g.Namespace:
		return false
	}
	return true
}

// effectiveHostnames are the hostnames a route serves on a listener; ""
// means every host.
func effectiveHostnames(listener string, route []string) []string {
	if len(route) == 0 {
		return []string{listener}
	}
	var out []string
	for _, h := range route {
		if e, ok := intersect(listener, h); ok && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// place adds every match of every rule of r to the vhost of host on l's
// port.
func (b *builder) place(g *manifest.Gateway, l *manifest.Listener, r *manifest.HTTPRoute, host string) {
	p := b.table.ports[l.Port]
	name := host
	if name == "" {
		name = "*"
	}
	policy := b.policies.claimFor(g.ID(), r.ID())
	for i, rule := range r.Rules {
		for j, m := range rule.Matches {
			rt := &Route{
				Cluster:  fmt.Sprintf("httproute/%s/%s/rule/%d", r.Namespace, r.Name, i),
				route:    r,
				rule:     i,
				at:       j,
				match:    m,
				Backends: b.ruleBackends(r, i),
			}
			rt.Name = rt.Cluster + "/match/" + strconv.Itoa(j) + "/" + strings.ReplaceAll(name, ".", "_")
			key := strconv.Itoa(l.Port) + " " + rt.Name
			if b.seen[key] {
				continue
			}
			b.seen[key] = true
			rt.Limits = ratelimit.NewRouteOn(g.ID()+"/"+l.Name, rt.Name, policy.rules)
			if policy.invalid() {
				rt.Backends = nil // every request answered 500
			}
			b.vhost(p, name).routes = append(b.vhost(p, name).routes, rt)
		}
	}
}

// ruleBackends resolves a rule's backends once, however many listeners
// and hostnames the route is placed on.
func (b *builder) ruleBackends(r *manifest.HTTPRoute, i int) *Backends {
	key := r.ID() + "/" + strconv.Itoa(i)
	if bs, ok := b.rules[key]; ok {
		return bs
	}
	bs := b.resolveBackends(r, r.Rules[i])
	b.rules[key] = bs
	return bs
}

func (b *builder) vhost(p *Port, host string) *vhost {
	switch {
	case host == "*":
		if p.any == nil {
			p.any = &vhost{hostname: host}
		}
		return p.any
	case strings.HasPrefix(host, "*."):
		for _, v := range p.wild {
			if v.hostname == host {
				return v
			}
		}
		v := &vhost{hostname: host}
		p.wild = append(p.wild, v)
		return v
	default:
		v := p.exact[host]
		if v == nil {
			v = &vhost{hostname: host}
			p.exact[host] = v
		}
		return v
	}
}

// finish sorts routes by precedence and wildcards by specificity.
func (b *builder) finish() {
	for _, p := range b.table.ports {
		slices.SortFunc(p.wild, func(x, y *vhost) int {
			if moreSpecific(x.hostname, y.hostname) {
				return -1
			}
			return 1
		})
		all := append(slices.Collect(maps.Values(p.exact)), p.wild...)
		if p.any != nil {
			all = append(all, p.any)
		}
		for _, v := range all {
			slices.SortStableFunc(v.routes, precedence)
			for _, rt := range v.routes {
				if len(rt.match.Query) > 0 {
					p.queries++
				}
			}
		}
		p.lookup = p.queries > 0
		if p.Protocol == "HTTPS" {
			p.TLS = p.tlsConfig()
		}
	}
}
