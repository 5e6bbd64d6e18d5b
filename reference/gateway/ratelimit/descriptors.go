package ratelimit

import (
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	commonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// The descriptors a rate limit service is asked about are the ones Envoy
// Gateway makes Envoy send for the same policy (its translator,
// internal/xds/translator/ratelimit.go: buildRouteRateLimits for the
// actions, buildRateLimitServiceDescriptors for the service's
// configuration), so that the service's configuration and counters are
// those an Envoy Gateway deployment has. Per Global rule, in this order:
//
//	generic_key   <route name>=<route name>, or <rule name>=<rule name> when shared
//	header i      rule-<r>-match-<i>=<header value> (Distinct, first value)
//	              rule-<r>-match-<i>=rule-<r>-match-<i> (Exact, RegularExpression: when it holds)
//	method        rule-<r>-method=rule-<r>-method (one descriptor per method selector that holds)
//	path          rule-<r>-path=rule-<r>-path
//	source        masked_remote_address=<cidr>, then remote_address=<client ip> when Distinct
//	none of these rule-<r>-match--1=rule-<r>-match--1
//
// where <r> counts the rules of the policy that share the rule's domain
// (the shared ones apart from the others), header selectors are numbered
// across all the rule's clientSelectors, and a rule whose conditions do
// not hold sends no descriptor. The domain is the listener,
// "<namespace>/<gateway>/<listener>", or "<namespace>/<policy>" for a
// shared rule: Envoy has one rate limit filter, so one request to the
// service, per domain, in domain order.
const (
	keyMaskedRemoteAddress = "masked_remote_address"
	keyRemoteAddress       = "remote_address"
)

// serviceDomain is the Global rules of one route that one of Envoy's rate
// limit filters asks the service about.
type serviceDomain struct {
	domain string
	rules  []*serviceRule
}

// serviceRule is one Global rule with its descriptor keys on one route.
type serviceRule struct {
	*Rule
	top        string // the generic_key entry's key and value
	headerKeys []string
	methodKey  string
	pathKey    string
	noMatchKey string // "" when the rule has a condition
	// The rule's conditions, flattened across its clientSelectors as
	// Envoy Gateway flattens them: headers and methods append, the last
	// path and source win.
	headers []*manifest.HeaderSelector
	methods []*manifest.MethodSelector
	path    *manifest.PathSelector
	source  *manifest.SourceSelector
}

// NewRouteOn is NewRoute for a route served on listener
// "<namespace>/<gateway>/<listener>": its Global rules can also be asked of a
// rate limit service, in that listener's domain.
func NewRouteOn(listener, route string, rules []*Rule) *Route {
	rt := NewRoute(route, rules)
	if rt == nil {
		return nil
	}
	var shared, own int // rules so far in the shared domain and in the listener's
	for _, b := range rt.global {
		domain, index := listener, &own
		if b.Shared {
			domain, index = b.Policy, &shared
		}
		s := newServiceRule(b.Rule, route, *index)
		*index++
		i := slices.IndexFunc(rt.service, func(d serviceDomain) bool { return d.domain == domain })
		if i < 0 {
			i = len(rt.service)
			rt.service = append(rt.service, serviceDomain{domain: domain})
		}
		rt.service[i].rules = append(rt.service[i].rules, s)
	}
	slices.SortFunc(rt.service, func(a, b serviceDomain) int { return strings.Compare(a.domain, b.domain) })
	return rt
}

// ruleName is Envoy Gateway's name of a Global rule.
func ruleName(r *Rule) string { return r.Policy + "/rule/" + strconv.Itoa(r.Index) }

func newServiceRule(r *Rule, route string, index int) *serviceRule {
	prefix := "rule-" + strconv.Itoa(index)
	s := &serviceRule{Rule: r, top: route, methodKey: prefix + "-method", pathKey: prefix + "-path"}
	if r.Shared {
		s.top = ruleName(r)
	}
	for _, sel := range r.Selectors {
		s.headers = append(s.headers, sel.Headers...)
		s.methods = append(s.methods, sel.Methods...)
		if sel.Path != nil {
			s.path = sel.Path
		}
		if sel.Source != nil {
			s.source = sel.Source
		}
	}
	for i := range s.headers {
		s.headerKeys = append(s.headerKeys, prefix+"-match-"+strconv.Itoa(i))
	}
	if len(s.headers) == 0 && len(s.methods) == 0 && s.path == nil && s.source == nil {
		s.noMatchKey = prefix + "-match--1"
	}
	return s
}

// serviceCall is one ShouldRateLimit request.
type serviceCall struct {
	domain      string
	descriptors []*commonv3.RateLimitDescriptor
}

// serviceCalls are the requests Envoy would send the service for r, in
// order; a domain none of whose rules applies sends none. With response,
// they are those Envoy sends once the response is complete: the
// descriptors of the rules with a response cost (Envoy Gateway gives each
// a second rate limit, apply_on_stream_done, with the same actions).
//
// A rule's cost is the descriptor's hits_addend, as Envoy Gateway's
// translator sets it (RateLimit.hits_addend, which Envoy copies into the
// descriptor): a number as such; from Metadata, a format
// %DYNAMIC_METADATA(namespace:key)% that gives nothing in this gateway,
// which has no filter writing dynamic metadata, so Envoy ignores the
// descriptor. Without a request cost the descriptor has no hits_addend,
// and the service adds 1.
func (rt *Route) serviceCalls(r *http.Request, client netip.Addr, response bool) []serviceCall {
	var calls []serviceCall
	for _, d := range rt.service {
		var ds []*commonv3.RateLimitDescriptor
		for _, s := range d.rules {
			c := s.RequestCost
			if response {
				if c = s.ResponseCost; c == nil {
					continue
				}
			}
			if c != nil && c.From != manifest.CostFromNumber {
				continue
			}
			n := len(ds)
			ds = s.descriptors(ds, r, client)
			if c != nil {
				for _, d := range ds[n:] {
					d.HitsAddend = wrapperspb.UInt64(c.Number)
				}
			}
		}
		if len(ds) > 0 {
			calls = append(calls, serviceCall{domain: d.domain, descriptors: ds})
		}
	}
	return calls
}

// descriptors appends the rule's descriptors for r: none when one of its
// actions produces no entry, as Envoy drops such a descriptor.
func (s *serviceRule) descriptors(out []*commonv3.RateLimitDescriptor, r *http.Request, client netip.Addr) []*commonv3.RateLimitDescriptor {
	head := []*commonv3.RateLimitDescriptor_Entry{{Key: s.top, Value: s.top}}
	for i, h := range s.headers {
		key := s.headerKeys[i]
		if h.Type == manifest.MatchDistinct {
			// Envoy's request_headers action takes the first value.
			v := r.Header.Values(h.Name)
			if len(v) == 0 {
				return out
			}
			head = append(head, &commonv3.RateLimitDescriptor_Entry{Key: key, Value: v[0]})
			continue
		}
		if _, ok := headerMatch(h, r.Header); !ok {
			return out
		}
		head = append(head, &commonv3.RateLimitDescriptor_Entry{Key: key, Value: key})
	}
	var tail []*commonv3.RateLimitDescriptor_Entry
	if p := s.path; p != nil {
		if pathMatch(p, r.URL.Path) == p.Invert {
			return out
		}
		tail = append(tail, &commonv3.RateLimitDescriptor_Entry{Key: s.pathKey, Value: s.pathKey})
	}
	if src := s.source; src != nil {
		if !client.IsValid() || !src.Prefix.Contains(client.Unmap()) {
			return out
		}
		tail = append(tail, &commonv3.RateLimitDescriptor_Entry{Key: keyMaskedRemoteAddress, Value: src.Prefix.String()})
		if src.Distinct {
			tail = append(tail, &commonv3.RateLimitDescriptor_Entry{Key: keyRemoteAddress, Value: client.Unmap().String()})
		}
	}
	if s.noMatchKey != "" {
		tail = append(tail, &commonv3.RateLimitDescriptor_Entry{Key: s.noMatchKey, Value: s.noMatchKey})
	}
	if len(s.methods) == 0 {
		return append(out, &commonv3.RateLimitDescriptor{Entries: append(head, tail...)})
	}
	// One rate limit per method selector, each with the same keys: a
	// request two of them pick is counted twice, as in Envoy Gateway.
	for _, m := range s.methods {
		if (m.Method == r.Method) == m.Invert {
			continue
		}
		entries := slices.Concat(head, []*commonv3.RateLimitDescriptor_Entry{{Key: s.methodKey, Value: s.methodKey}}, tail)
		out = append(out, &commonv3.RateLimitDescriptor{Entries: entries})
	}
	return out
}
