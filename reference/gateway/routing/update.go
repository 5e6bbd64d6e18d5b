package routing

import (
	"maps"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// source is what a build read besides the routes, and the notices of each
// route: all Update needs to place routes as Build would.
type source struct {
	o        Options
	gateways map[string]*manifest.Gateway
	backends map[string]*manifest.Backend
	secrets  map[string]*manifest.Secret
	policies policies
	targeted map[string]bool // IDs of the HTTPRoutes a policy names
	base     []manifest.Notice
	byRoute  map[*manifest.HTTPRoute][]manifest.Notice // only routes with notices
}

// source keeps what the builder read once listeners and policies are done.
func (b *builder) source(set *manifest.Set) *source {
	s := &source{o: b.o, gateways: b.gateways, backends: b.backends, secrets: b.secrets, policies: b.policies,
		targeted: map[string]bool{}, base: slices.Clip(b.notices), byRoute: map[*manifest.HTTPRoute][]manifest.Notice{}}
	for _, p := range set.Policies {
		for _, t := range p.Targets {
			if t.Kind == "HTTPRoute" {
				s.targeted[p.Namespace+"/"+t.Name] = true
			}
		}
	}
	return s
}

// Update is Build of set when set differs from the set t was built from
// only in HTTPRoutes: removed are gone, added are new (a changed route is
// both). It places the added routes and takes the removed ones out of the
// host names they were on, and shares everything else with t, which stays
// as it is for the requests using it: a change to one route of thousands
// costs that route. ok is false when the change reaches further than the
// routes' own places (a policy names a route that comes or goes); the
// caller then builds anew.
func (t *Table) Update(set *manifest.Set, removed, added []*manifest.HTTPRoute) (*Table, []manifest.Notice, bool) {
	s := t.src
	if s == nil {
		return nil, nil, false
	}
	count := map[string]int{}
	for _, r := range removed {
		count[r.ID()]--
	}
	for _, r := range added {
		count[r.ID()]++
	}
	for id, n := range count {
		if n != 0 && s.targeted[id] {
			return nil, nil, false
		}
	}
	out := &Table{ports: maps.Clone(t.ports), src: &source{}}
	*out.src = *s
	out.src.byRoute = maps.Clone(s.byRoute)
	u := &update{t: t, out: out, copied: map[int]bool{}, touched: map[*vhost]bool{}}

	gone := map[*manifest.HTTPRoute]bool{}
	for _, r := range removed {
		gone[r] = true
		delete(out.src.byRoute, r)
		// Build places a route the same way whatever else the set holds:
		// placing it again names the hosts it was on.
		for port, hosts := range t.place(r).hosts() {
			for _, h := range hosts {
				v := u.vhost(port, h, false)
				if v == nil {
					continue
				}
				v.routes = slices.DeleteFunc(v.routes, func(rt *Route) bool {
					if gone[rt.route] && len(rt.match.Query) > 0 {
						u.port(port).queries--
					}
					return gone[rt.route]
				})
			}
		}
	}
	for _, r := range added {
		b := t.place(r)
		if len(b.notices) > 0 {
			out.src.byRoute[r] = b.notices
		}
		for port, p := range b.table.ports {
			for _, sv := range p.vhosts() {
				v := u.vhost(port, sv.hostname, true)
				v.routes = append(v.routes, sv.routes...)
				for _, rt := range sv.routes {
					if len(rt.match.Query) > 0 {
						u.port(port).queries++
					}
				}
			}
		}
	}
	u.finish()

	notices := slices.Clone(s.base)
	for _, r := range set.Routes {
		notices = append(notices, out.src.byRoute[r]...)
	}
	return out, notices, true
}

// place places r alone, on empty copies of t's ports, as Build does.
func (t *Table) place(r *manifest.HTTPRoute) *builder {
	s := t.src
	b := &builder{o: s.o, table: &Table{ports: map[int]*Port{}}, gateways: s.gateways, backends: s.backends,
		secrets: s.secrets, policies: s.policies, rules: map[string]*Backends{}, seen: map[string]bool{}}
	for n, p := range t.ports {
		b.table.ports[n] = &Port{Number: n, Protocol: p.Protocol, exact: map[string]*vhost{}}
	}
	for _, p := range r.Parents {
		b.attach(r, p)
	}
	return b
}

// hosts are the host names routes were placed on, by port.
func (b *builder) hosts() map[int][]string {
	out := map[int][]string{}
	for n, p := range b.table.ports {
		for _, v := range p.vhosts() {
			out[n] = append(out[n], v.hostname)
		}
	}
	return out
}

// vhosts are every host name of the port.
func (p *Port) vhosts() []*vhost {
	all := append(slices.Collect(maps.Values(p.exact)), p.wild...)
	if p.any != nil {
		all = append(all, p.any)
	}
	return all
}

// update is Table.Update's copy on write: a port is copied before its
// first change, a host name's routes before theirs.
type update struct {
	t, out  *Table
	copied  map[int]bool
	touched map[*vhost]bool
}

func (u *update) port(n int) *Port {
	if !u.copied[n] {
		c := *u.t.ports[n]
		c.exact = maps.Clone(c.exact)
		c.wild = slices.Clone(c.wild)
		u.out.ports[n] = &c
		u.copied[n] = true
	}
	return u.out.ports[n]
}

// vhost is the copy of the port's host name, made when create is set and
// there is none.
func (u *update) vhost(port int, host string, create bool) *vhost {
	p := u.port(port)
	var slot **vhost
	switch {
	case host == "*":
		slot = &p.any
	case strings.HasPrefix(host, "*."):
		i := slices.IndexFunc(p.wild, func(v *vhost) bool { return v.hostname == host })
		if i < 0 {
			if !create {
				return nil
			}
			p.wild = append(p.wild, &vhost{hostname: host})
			i = len(p.wild) - 1
		}
		slot = &p.wild[i]
	default:
		v := p.exact[host]
		if v == nil && !create {
			return nil
		}
		if v == nil {
			v = &vhost{hostname: host}
		}
		slot = &v
		defer func() { p.exact[host] = *slot }()
	}
	if *slot == nil {
		if !create {
			return nil
		}
		*slot = &vhost{hostname: host}
	}
	if !u.touched[*slot] {
		*slot = &vhost{hostname: host, routes: slices.Clone((*slot).routes)}
		u.touched[*slot] = true
	}
	return *slot
}

// finish sorts the routes of every host name changed, drops those left
// without routes (a request for them goes to a wildcard or any host, as
// after Build), and orders the wildcards again.
func (u *update) finish() {
	for n := range u.copied {
		p := u.out.ports[n]
		for host, v := range p.exact {
			if u.touched[v] && len(v.routes) == 0 {
				delete(p.exact, host)
			}
		}
		p.wild = slices.DeleteFunc(p.wild, func(v *vhost) bool { return u.touched[v] && len(v.routes) == 0 })
		if p.any != nil && u.touched[p.any] && len(p.any.routes) == 0 {
			p.any = nil
		}
		slices.SortFunc(p.wild, func(x, y *vhost) int {
			if moreSpecific(x.hostname, y.hostname) {
				return -1
			}
			return 1
		})
		p.lookup = p.queries > 0
	}
	for v := range u.touched {
		slices.SortStableFunc(v.routes, precedence)
	}
}
