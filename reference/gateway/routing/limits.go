package routing

import "github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"

// Limits are the rate limits of every route of the table, for a rate limit
// service's configuration: what Envoy Gateway derives from its listeners'
// routes.
func (t *Table) Limits() []*ratelimit.Route {
	var out []*ratelimit.Route
	for _, p := range t.Ports() {
		vhosts := make([]*vhost, 0, len(p.wild)+len(p.exact)+1)
		vhosts = append(append(vhosts, p.wild...), p.any)
		for _, v := range p.exact {
			vhosts = append(vhosts, v)
		}
		for _, v := range vhosts {
			if v == nil {
				continue
			}
			for _, rt := range v.routes {
				if rt.Limits != nil {
					out = append(out, rt.Limits)
				}
			}
		}
	}
	return out
}
