package routing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

// policies are the rate-limit rules in force per target.
type policies struct {
	byRoute   map[string]claim // HTTPRoute ID
	byGateway map[string]claim // Gateway ID
}

// claim is the policy that won a target, with its rules (none when the
// policy sets no rate limit: it still overrides a Gateway's policy).
type claim struct {
	policy *manifest.BackendTrafficPolicy
	rules  []*ratelimit.Rule
}

// indexPolicies gives each target the oldest policy that names it (then
// the first by namespace/name), as Envoy Gateway does, and notices the
// others as conflicted.
func (b *builder) indexPolicies(ps []*manifest.BackendTrafficPolicy) {
	b.policies = policies{byRoute: map[string]claim{}, byGateway: map[string]claim{}}
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(x, y *manifest.BackendTrafficPolicy) int {
		if c := compareCreated(x.Created, y.Created); c != 0 {
			return c
		}
		return strings.Compare(x.ID(), y.ID())
	})
	for _, p := range sorted {
		c := claim{policy: p}
		if p.Invalid == "" {
			c.rules = ratelimit.RulesOf(p)
		}
		for _, t := range p.Targets {
			b.claim(c, t)
		}
	}
}

func (b *builder) claim(c claim, t manifest.Ref) {
	p := c.policy
	id := p.Namespace + "/" + t.Name
	var claims map[string]claim
	switch t.Kind {
	case "HTTPRoute":
		if b.routes[id] == nil {
			b.notice(&p.Meta, t.Field, t.Line, fmt.Sprintf("HTTPRoute %s not found; the policy does not apply to it", id))
			return
		}
		claims = b.policies.byRoute
	case "Gateway":
		if b.gateways[id] == nil {
			b.notice(&p.Meta, t.Field, t.Line, fmt.Sprintf("Gateway %s not found; the policy does not apply to it", id))
			return
		}
		claims = b.policies.byGateway
	default:
		b.notice(&p.Meta, t.Field+".kind", t.Line, fmt.Sprintf("%s targets are not served by this gateway; ignored", t.Kind))
		return
	}
	if old, taken := claims[id]; taken {
		if old.policy != p {
			b.notice(&p.Meta, t.Field, t.Line, fmt.Sprintf("conflicted: %s %s is already targeted by the older %s; this policy does not apply to it", t.Kind, id, old.policy))
		}
		return
	}
	claims[id] = c
}

// claimFor returns the policy of a route attached through a Gateway, with
// its rules: the route's own policy, else the Gateway's (none: a zero
// claim).
func (p policies) claimFor(gatewayID, routeID string) claim {
	if c, ok := p.byRoute[routeID]; ok {
		return c
	}
	return p.byGateway[gatewayID]
}

// invalid tells whether the claim's policy is one Envoy Gateway cannot
// translate: the routes it applies to then answer 500 (a direct response,
// applyTrafficFeatureToRoute in its internal/gatewayapi/backendtrafficpolicy.go).
func (c claim) invalid() bool { return c.policy != nil && c.policy.Invalid != "" }
