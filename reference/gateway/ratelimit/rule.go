package ratelimit

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// Rule is one rate-limit rule of a policy, as read from its manifest.
type Rule struct {
	*manifest.RateLimitRule
	// ID names the rule's counters: "<namespace>/<policy>/<global|local>/<index>".
	ID    string
	Local bool
	// Policy is the policy's namespace/name and Index the rule's place in
	// its global or local rules: Envoy Gateway names the rule
	// "<namespace>/<policy>/rule/<index>" in what it sends a rate limit
	// service.
	Policy string
	Index  int
}

// window is the rule's window in seconds.
func (r *Rule) window() int64 { return int64(r.Window.Seconds()) }

// Route is the rules one route is limited by, with their counter names.
// It is immutable, built when the configuration is loaded.
type Route struct {
	local, global []bound
	// service are the Global rules as a rate limit service is asked about
	// them, grouped by domain (NewRouteOn; none without a listener).
	service []serviceDomain
	// responseCost: some Global rule has a response cost.
	responseCost bool
}

// bound is a rule with the prefix of its counter names on one route.
type bound struct {
	*Rule
	prefix string
}

// NewRoute binds rules to the route named name (Envoy Gateway's route name,
// e.g. httproute/default/quotes/rule/0/match/0/www_example_com): a rule's
// counters are per route unless the rule is shared. nil when there are no
// rules.
func NewRoute(name string, rules []*Rule) *Route {
	if len(rules) == 0 {
		return nil
	}
	rt := &Route{}
	for _, r := range rules {
		scope := name
		if r.Shared {
			scope = "*"
		}
		b := bound{Rule: r, prefix: "rl:" + r.ID + ":" + scope}
		if r.Local {
			rt.local = append(rt.local, b)
		} else {
			rt.global = append(rt.global, b)
			rt.responseCost = rt.responseCost || r.ResponseCost != nil
		}
	}
	return rt
}

// key is the name of the counter request r counts towards in the window
// starting at start, or ok=false when the rule does not apply to r.
func (b bound) key(r *http.Request, client netip.Addr, start int64) (string, bool) {
	var sb strings.Builder
	sb.WriteString(b.prefix)
	for _, s := range b.Selectors {
		if !selectorKey(&sb, s, r, client) {
			return "", false
		}
	}
	sb.WriteByte(':')
	sb.WriteString(strconv.FormatInt(start, 10))
	return sb.String(), true
}

// selectorKey tells whether every condition of s holds for r, and writes
// the values of its Distinct conditions to sb.
func selectorKey(sb *strings.Builder, s *manifest.ClientSelector, r *http.Request, client netip.Addr) bool {
	for _, h := range s.Headers {
		v, ok := headerMatch(h, r.Header)
		if !ok {
			return false
		}
		if h.Type == manifest.MatchDistinct {
			sb.WriteString(":" + url.QueryEscape(strings.ToLower(h.Name)) + "=" + url.QueryEscape(v))
		}
	}
	if len(s.Methods) > 0 && !methodMatch(s.Methods, r.Method) {
		return false
	}
	if s.Path != nil && pathMatch(s.Path, r.URL.Path) == s.Path.Invert {
		return false
	}
	if src := s.Source; src != nil {
		if !client.IsValid() || !src.Prefix.Contains(client.Unmap()) {
			return false
		}
		if src.Distinct {
			sb.WriteString(":ip=" + client.Unmap().String())
		} else {
			sb.WriteString(":cidr=" + src.Prefix.String())
		}
	}
	return true
}

// headerMatch returns the header's value (several are joined with ",", as
// Envoy joins them) and whether h holds. A Distinct selector holds only
// when the header is present.
func headerMatch(h *manifest.HeaderSelector, header http.Header) (string, bool) {
	values := header.Values(h.Name)
	if len(values) == 0 {
		return "", h.Type != manifest.MatchDistinct && h.Invert
	}
	v := values[0]
	if len(values) > 1 {
		v = strings.Join(values, ",")
	}
	switch h.Type {
	case manifest.MatchDistinct:
		return v, true
	case manifest.MatchRegex:
		return v, h.RE.MatchString(v) != h.Invert
	default:
		return v, (v == h.Value) != h.Invert
	}
}

// methodMatch holds when any of the methods matches.
func methodMatch(ms []*manifest.MethodSelector, method string) bool {
	for _, m := range ms {
		if (m.Method == method) != m.Invert {
			return true
		}
	}
	return false
}

func pathMatch(p *manifest.PathSelector, path string) bool {
	switch p.Type {
	case manifest.PathExact:
		return path == p.Value
	case manifest.PathRegex:
		return p.RE.MatchString(path)
	default:
		return manifest.PrefixMatch(p.Value, path)
	}
}

// RulesOf returns the rules of policy p, Local ones first.
func RulesOf(p *manifest.BackendTrafficPolicy) []*Rule {
	var rules []*Rule
	for i, r := range p.Local {
		rules = append(rules, &Rule{RateLimitRule: r, ID: p.ID() + "/local/" + strconv.Itoa(i), Local: true, Policy: p.ID(), Index: i})
	}
	for i, r := range p.Global {
		rules = append(rules, &Rule{RateLimitRule: r, ID: p.ID() + "/global/" + strconv.Itoa(i), Policy: p.ID(), Index: i})
	}
	return rules
}
