package routing

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// Backends are the backends of one rule, chosen by weight.
type Backends struct {
	choices []choice
	total   int
}

// choice is one backendRef: its weight and addresses (host:port); no
// addresses when the ref does not resolve.
type choice struct {
	weight int
	addrs  []string
}

// Pick chooses an address by weight, then among the ref's endpoints at
// random. ok=false means the request must get 500: no backend, all
// weights zero, or the chosen ref does not resolve.
func (b *Backends) Pick() (addr string, ok bool) {
	if b == nil || b.total == 0 {
		return "", false
	}
	n := 0
	if b.total > 1 {
		n = rand.IntN(b.total)
	}
	for _, c := range b.choices {
		if n < c.weight {
			if len(c.addrs) == 0 {
				return "", false
			}
			if len(c.addrs) == 1 {
				return c.addrs[0], true
			}
			return c.addrs[rand.IntN(len(c.addrs))], true
		}
		n -= c.weight
	}
	return "", false
}

// resolveBackends resolves the refs of one rule.
func (b *builder) resolveBackends(r *manifest.HTTPRoute, rule *manifest.RouteRule) *Backends {
	bs := &Backends{}
	for _, ref := range rule.Backends {
		c := choice{weight: ref.Weight, addrs: b.resolve(r, ref)}
		bs.choices = append(bs.choices, c)
		bs.total += c.weight
	}
	if len(rule.Backends) == 0 {
		b.notice(&r.Meta, rule.Field+".backendRefs", r.Line, "the rule has no backendRefs; its requests get 500")
	}
	return bs
}

// resolve returns the addresses of one backendRef; none (and a notice)
// when it does not resolve.
func (b *builder) resolve(r *manifest.HTTPRoute, ref *manifest.BackendRef) []string {
	ns := cmp.Or(ref.Namespace, r.Namespace)
	if ns != r.Namespace {
		b.notice(&r.Meta, ref.Field+".namespace", ref.Line, "cross-namespace backendRefs need a ReferenceGrant, which is not implemented; its requests get 500")
		return nil
	}
	switch {
	case ref.Group == "" && ref.Kind == "Service":
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ref.Port))
		b.notice(&r.Meta, ref.Field, ref.Line, fmt.Sprintf("Service %s/%s is served by this host: %s (no Kubernetes here)", ns, ref.Name, addr))
		return []string{addr}
	case ref.Group == manifest.EnvoyGroup && ref.Kind == "Backend":
		be := b.backends[ns+"/"+ref.Name]
		if be == nil {
			b.notice(&r.Meta, ref.Field+".name", ref.Line, fmt.Sprintf("Backend %s/%s not found; its requests get 500", ns, ref.Name))
			return nil
		}
		addrs := make([]string, 0, len(be.Endpoints))
		for _, e := range be.Endpoints {
			addrs = append(addrs, net.JoinHostPort(e.Host, strconv.Itoa(e.Port)))
		}
		if len(addrs) == 0 {
			b.notice(&r.Meta, ref.Field+".name", ref.Line, fmt.Sprintf("Backend %s/%s has no usable endpoint; its requests get 500", ns, ref.Name))
		}
		return addrs
	default:
		b.notice(&r.Meta, ref.Field+".kind", ref.Line, fmt.Sprintf("backend kind %q (group %q) is not implemented; valid: Service, Backend (gateway.envoyproxy.io); its requests get 500", ref.Kind, ref.Group))
		return nil
	}
}
