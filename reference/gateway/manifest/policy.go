package manifest

import (
	"fmt"
	"net/netip"
	"regexp"
	"time"
)

// Units are the rate-limit units and their windows: fixed blocks aligned
// to the Unix epoch, as envoyproxy/ratelimit counts them (a Month is 30
// days, a Year 365). Envoy Gateway's API lists all but Week, which the
// rate-limit service also knows.
var Units = map[string]time.Duration{
	"Second": time.Second,
	"Minute": time.Minute,
	"Hour":   time.Hour,
	"Day":    24 * time.Hour,
	"Week":   7 * 24 * time.Hour,
	"Month":  30 * 24 * time.Hour,
	"Year":   365 * 24 * time.Hour,
}

var unitNames = []string{"Second", "Minute", "Hour", "Day", "Week", "Month", "Year"}

// targetKinds are the kinds Envoy Gateway accepts in a policy target;
// this gateway serves Gateway and HTTPRoute.
var targetKinds = []string{"Gateway", "HTTPRoute", "GRPCRoute", "UDPRoute", "TCPRoute", "TLSRoute"}

// readPolicy reads a BackendTrafficPolicy: its targets and rate limits.
// Its other features (retries, timeouts, circuit breakers...) are noticed
// field by field by done.
func readPolicy(set *Set, m Meta, o *object) {
	spec := o.child("spec")
	p := &BackendTrafficPolicy{Meta: m}
	p.Targets = readTargets(spec)
	if rl := spec.child("rateLimit"); rl.present() {
		readRateLimit(rl, p)
	}
	spec.done()
	set.Policies = append(set.Policies, p)
}

// readTargets reads targetRefs, or the deprecated single targetRef
// (exactly one of them, as Envoy Gateway's validation requires).
func readTargets(spec *object) []Ref {
	if spec.has("targetSelectors") {
		spec.d.notice(spec.line("targetSelectors"), spec.field("targetSelectors"), "target selectors are "+notImplemented)
		spec.ignore("targetSelectors")
	}
	var refs []*object
	switch {
	case spec.has("targetRef") && spec.has("targetRefs"):
		spec.errorf("targetRefs", "either targetRef or targetRefs must be used, not both")
		spec.ignore("targetRef", "targetRefs")
	case spec.has("targetRef"):
		refs = []*object{spec.child("targetRef")}
	case spec.has("targetRefs"):
		refs = spec.objects("targetRefs")
	default:
		spec.errorf("targetRefs", "is required (the routes or gateways the policy applies to)")
	}
	var out []Ref
	for _, r := range refs {
		ref := Ref{Field: r.path, Line: lineOf(r.node, r.d.line)}
		ref.Group = r.requiredStr("group")
		if ref.Group != "" && ref.Group != GatewayAPIGroup {
			r.errorf("group", "must be %s", GatewayAPIGroup)
		}
		ref.Kind = r.enum("kind", "", targetKinds...)
		if !r.has("kind") {
			r.errorf("kind", "is required")
		}
		ref.Name = r.name("name")
		if r.has("sectionName") {
			r.errorf("sectionName", "is not supported by this policy (as in Envoy Gateway)")
		}
		r.ignore("namespace") // policy targets are local; Envoy Gateway ignores it too
		r.done()
		out = append(out, ref)
	}
	return out
}

// readRateLimit reads rateLimit. The deprecated type names the one block in
// use; without it, global and local may both be given and both apply.
func readRateLimit(o *object, p *BackendTrafficPolicy) {
	typ := o.enum("type", "", "Global", "Local")
	if typ == "Global" && !o.has("global") {
		o.errorf("global", "is required when type is Global")
	}
	if typ == "Local" && !o.has("local") {
		o.errorf("local", "is required when type is Local")
	}
	if typ == "" && !o.has("global") && !o.has("local") && !o.has("type") {
		o.d.errorf(o.node, o.path, "global or local is required")
	}
	if g := o.child("global"); g.present() {
		if !g.has("rules") {
			g.errorf("rules", "is required")
		}
		p.Global = readRules(g, true, p)
		if p.Global == nil {
			p.Global = []*RateLimitRule{}
		}
		g.done()
	}
	if l := o.child("local"); l.present() {
		p.Local = readRules(l, false, p)
		if p.Local == nil {
			p.Local = []*RateLimitRule{}
		}
		l.done()
	}
	o.done()
}

func readRules(o *object, global bool, p *BackendTrafficPolicy) []*RateLimitRule {
	var rules []*RateLimitRule
	for _, ro := range o.objects("rules") {
		if r := readRule(ro, global, p); r != nil {
			rules = append(rules, r)
		}
	}
	return rules
}

func readRule(o *object, global bool, p *BackendTrafficPolicy) *RateLimitRule {
	r := &RateLimitRule{Field: o.path}
	lim := o.child("limit")
	if !lim.present() {
		o.errorf("limit", "is required")
	}
	if !lim.has("requests") && lim.present() {
		lim.errorf("requests", "is required")
	}
	r.Requests, _ = lim.integer("requests", 0, 1<<32-1)
	if !lim.has("unit") && lim.present() {
		lim.errorf("unit", "is required")
	}
	r.Unit = lim.enum("unit", "", unitNames...)
	r.Window = Units[r.Unit]
	lim.done()
	for _, so := range o.objects("clientSelectors") {
		r.Selectors = append(r.Selectors, readSelector(so, p))
	}
	r.Shared = o.boolean("shared")
	if o.has("shadowMode") && !global {
		o.d.notice(o.line("shadowMode"), o.field("shadowMode"), "shadowMode only applies to Global rate limits; ignored")
	}
	r.Shadow = o.boolean("shadowMode") && global
	if co := o.child("cost"); co.present() {
		readCost(co, r, global)
	}
	o.done()
	return r
}

// readCost reads a rule's cost, validated as Envoy Gateway's CRD and Envoy
// validate it. A Local rule's cost is checked but not applied.
func readCost(o *object, r *RateLimitRule, global bool) {
	if !o.has("request") && !o.has("response") {
		o.d.notice(o.node, o.path, "neither request nor response is given; the cost is 1 per request")
	}
	var req, resp *Cost
	if so := o.child("request"); so.present() {
		req = readCostSpecifier(so)
	}
	if so := o.child("response"); so.present() {
		if !global {
			o.errorf("response", "response cost is not supported for Local Rate Limits")
		}
		resp = readCostSpecifier(so)
	}
	o.done()
	if !global {
		if req != nil {
			o.d.notice(o.node, o.path, notImplemented+" (a Local rule)")
		}
		return
	}
	r.RequestCost, r.ResponseCost = req, resp
}

// readCostSpecifier reads a RateLimitCostSpecifier: from is required,
// Number or Metadata, and names the one of number and metadata that is
// given.
func readCostSpecifier(o *object) *Cost {
	c := &Cost{From: o.enum("from", "", CostFromNumber, CostFromMetadata)}
	if !o.has("from") {
		o.errorf("from", "is required (Number or Metadata)")
	}
	if o.has("number") && o.has("metadata") {
		o.errorf("metadata", "only one of number or metadata can be specified")
	}
	if o.has("number") {
		n, _ := o.integer("number", 0, MaxCost)
		c.Number = uint64(n)
	}
	if mo := o.child("metadata"); mo.present() {
		c.MetadataNamespace, c.Key = mo.requiredStr("namespace"), mo.requiredStr("key")
		mo.done()
	}
	switch {
	case c.From == CostFromNumber && !o.has("number"):
		o.errorf("number", "is required when from is Number")
	case c.From == CostFromMetadata && !o.has("metadata"):
		o.errorf("metadata", "is required when from is Metadata")
	case c.From == CostFromNumber && o.has("metadata"), c.From == CostFromMetadata && o.has("number"):
		o.errorf("from", "is %s, but the cost is given by %s", c.From, map[string]string{CostFromNumber: "metadata", CostFromMetadata: "number"}[c.From])
	}
	o.done()
	return c
}

// readSelector reads one client selector: every condition given must hold.
func readSelector(o *object, p *BackendTrafficPolicy) *ClientSelector {
	s := &ClientSelector{}
	if !o.has("headers") && !o.has("methods") && !o.has("path") && !o.has("sourceCIDR") {
		o.d.errorf(o.node, o.path, "at least one of headers, methods, path or sourceCIDR must be specified")
	}
	for _, ho := range o.objects("headers") {
		s.Headers = append(s.Headers, readHeaderSelector(ho, p))
	}
	for _, mo := range o.objects("methods") {
		m := &MethodSelector{Method: mo.enum("value", "", methods...), Invert: mo.boolean("invert")}
		if !mo.has("value") {
			mo.errorf("value", "is required")
		}
		mo.done()
		s.Methods = append(s.Methods, m)
	}
	if po := o.child("path"); po.present() {
		s.Path = readPathSelector(po)
	}
	if co := o.child("sourceCIDR"); co.present() {
		s.Source = readSourceSelector(co)
	}
	o.done()
	return s
}

// readHeaderSelector reads a header selector. What Envoy Gateway's CRD
// refuses (an unknown type, no name) is an error; what its translator
// cannot translate (buildRateLimitRule in
// internal/gatewayapi/backendtrafficpolicy.go) makes the policy invalid.
func readHeaderSelector(o *object, p *BackendTrafficPolicy) *HeaderSelector {
	h := &HeaderSelector{Name: o.headerName("name"), Type: o.enum("type", MatchExact, MatchExact, MatchRegex, MatchDistinct)}
	switch {
	case h.Type == MatchDistinct && !o.has("value"):
		if o.boolean("invert") {
			p.untranslatable(o, "invert", "unable to translate rateLimit.Invert is not applicable for distinct header match type.")
		}
	case h.Type == MatchDistinct, !o.has("value"):
		p.untranslatable(o, "value", "unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value")
		o.ignore("value", "invert")
	default:
		h.Value = o.str("value")
		if h.Type == MatchRegex {
			h.RE = o.untranslatableRegex("value", h.Value, p)
		}
		h.Invert = o.boolean("invert")
	}
	o.done()
	return h
}

// untranslatable makes the policy invalid with Envoy Gateway's message
// (the first one, as its translator stops there), noticed at the field.
func (p *BackendTrafficPolicy) untranslatable(o *object, key, msg string) {
	msg = "RateLimit: " + msg
	if p.Invalid == "" {
		p.Invalid = msg
	}
	o.d.notice(o.line(key), o.field(key), "the policy is not accepted (Accepted False, reason Invalid: "+msg+
		"); the routes it targets answer 500, as Envoy Gateway's do")
}

// untranslatableRegex compiles a header selector's regular expression;
// one that does not compile makes the policy invalid.
func (o *object) untranslatableRegex(key, value string, p *BackendTrafficPolicy) *regexp.Regexp {
	if len(value) > maxRegexLen {
		o.errorf(key, "is longer than %d characters", maxRegexLen)
		return nil
	}
	re, err := regexp.Compile(`^(?:` + value + `)$`)
	if err != nil {
		p.untranslatable(o, key, fmt.Sprintf("regex %q is invalid: %v", value, err))
		return nil
	}
	return re
}

func readPathSelector(o *object) *PathSelector {
	p := &PathSelector{Type: o.enum("type", PathPrefix, PathExact, PathPrefix, PathRegex), Value: "/"}
	if o.has("value") {
		p.Value = o.str("value")
	}
	if p.Type == PathRegex {
		p.RE = o.regex("value", p.Value)
	} else if msg := badPath(p.Value); msg != "" {
		o.errorf("value", "%q %s", p.Value, msg)
	}
	p.Invert = o.boolean("invert")
	o.done()
	return p
}

func readSourceSelector(o *object) *SourceSelector {
	s := &SourceSelector{Distinct: o.enum("type", "Exact", "Exact", "Distinct") == "Distinct"}
	v := o.requiredStr("value")
	if v != "" {
		prefix, err := netip.ParsePrefix(v)
		if err != nil {
			o.errorf("value", "%q is not a CIDR (e.g. 192.168.0.0/16 or 2001:db8::/64)", v)
		}
		s.Prefix = prefix.Masked()
	}
	o.done()
	return s
}

// String is "<requests>/<unit>", for logs.
func (r *RateLimitRule) String() string { return fmt.Sprintf("%d/%s", r.Requests, r.Unit) }
