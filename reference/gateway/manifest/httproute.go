package manifest

import (
	"fmt"
	"strings"
)

// readHTTPRoute reads an HTTPRoute.
func readHTTPRoute(set *Set, m Meta, o *object) {
	spec := o.child("spec")
	r := &HTTPRoute{Meta: m}
	for _, po := range spec.objects("parentRefs") {
		r.Parents = append(r.Parents, readParentRef(po))
	}
	for _, it := range spec.list("hostnames") {
		v := spec.d.strItem(it)
		if v != "" && !validHostname(v) {
			spec.d.errorf(it.node, it.path, badHostname, v)
			continue
		}
		if v != "" {
			r.Hostnames = append(r.Hostnames, v)
		}
	}
	rules := spec.objects("rules")
	if len(rules) == 0 {
		// The Gateway API defaults rules to one rule matching every path, with no backend.
		r.Rules = []*RouteRule{{Matches: []*RouteMatch{{PathType: PathPrefix, PathValue: "/"}}, Field: spec.field("rules")}}
	}
	for _, ro := range rules {
		r.Rules = append(r.Rules, readRouteRule(ro))
	}
	spec.done()
	set.Routes = append(set.Routes, r)
}

func readParentRef(o *object) *ParentRef {
	p := &ParentRef{Ref: Ref{Group: GatewayAPIGroup, Kind: "Gateway", Field: o.path, Line: lineOf(o.node, o.d.line)}}
	if o.has("group") {
		p.Group = o.str("group")
	}
	if o.has("kind") {
		p.Kind = o.str("kind")
	}
	p.Namespace = o.str("namespace")
	p.Name = o.name("name")
	p.SectionName = o.str("sectionName")
	p.Port = o.port("port", false)
	o.done()
	return p
}

func readRouteRule(o *object) *RouteRule {
	rule := &RouteRule{Field: o.path}
	o.str("name") // names a rule for policies' sectionName; no behaviour here
	for _, mo := range o.objects("matches") {
		rule.Matches = append(rule.Matches, readRouteMatch(mo))
	}
	if len(rule.Matches) == 0 {
		rule.Matches = []*RouteMatch{{PathType: PathPrefix, PathValue: "/"}}
	}
	for _, bo := range o.objects("backendRefs") {
		rule.Backends = append(rule.Backends, readBackendRef(bo))
	}
	if o.has("filters") {
		o.d.notice(o.line("filters"), o.field("filters"), "filters are "+notImplemented)
		o.ignore("filters")
	}
	o.done()
	return rule
}

func readRouteMatch(o *object) *RouteMatch {
	m := &RouteMatch{PathType: PathPrefix, PathValue: "/"}
	if p := o.child("path"); p.present() {
		m.PathType = p.enum("type", PathPrefix, PathExact, PathPrefix, PathRegex)
		if p.has("value") {
			m.PathValue = p.str("value")
		}
		switch m.PathType {
		case PathRegex:
			m.PathRE = p.regex("value", m.PathValue)
		case PathExact, PathPrefix:
			if msg := badPath(m.PathValue); msg != "" {
				p.errorf("value", "%q %s", m.PathValue, msg)
			}
		}
		p.done()
	}
	m.Headers = readValueMatches(o, "headers", true)
	m.Query = readValueMatches(o, "queryParams", false)
	m.Method = o.enum("method", "", methods...)
	o.done()
	return m
}

// badPath says what is wrong with an Exact or PathPrefix value, as the
// Gateway API's validation does; empty when it is fine.
func badPath(v string) string {
	switch {
	case !strings.HasPrefix(v, "/"):
		return "must start with /"
	case strings.Contains(v, "//"), strings.Contains(v, "/./"), strings.Contains(v, "/../"),
		strings.HasSuffix(v, "/.."), strings.HasSuffix(v, "/."):
		return "must not contain //, /./ or /../"
	case strings.Contains(strings.ToLower(v), "%2f"), strings.Contains(v, "#"), strings.Contains(v, "?"):
		return "must not contain %2f, # or ?"
	}
	return ""
}

// readValueMatches reads header or query parameter matches.
func readValueMatches(o *object, key string, header bool) []*ValueMatch {
	var out []*ValueMatch
	for _, vo := range o.objects(key) {
		v := &ValueMatch{}
		if header {
			v.Name = vo.headerName("name")
		} else {
			v.Name = vo.requiredStr("name")
		}
		typ := vo.enum("type", MatchExact, MatchExact, MatchRegex)
		if !vo.has("value") {
			vo.errorf("value", "is required")
		}
		v.Value = vo.str("value")
		if typ == MatchRegex {
			v.RE = vo.regex("value", v.Value)
		}
		vo.done()
		out = append(out, v)
	}
	return out
}

// readBackendRef reads a backendRef: a Service (resolved on this host) or
// an Envoy Gateway Backend.
func readBackendRef(o *object) *BackendRef {
	b := &BackendRef{Ref: Ref{Kind: "Service", Field: o.path, Line: lineOf(o.node, o.d.line)}, Weight: 1}
	b.Group = o.str("group")
	if o.has("kind") {
		b.Kind = o.str("kind")
	}
	b.Namespace = o.str("namespace")
	b.Name = o.name("name")
	b.Port = o.port("port", false)
	if b.Kind == "Service" && b.Group == "" && b.Port == 0 && !o.has("port") {
		o.errorf("port", "is required for a Service backend")
	}
	if o.has("weight") {
		w, _ := o.integer("weight", 0, 1_000_000)
		b.Weight = int(w)
	}
	if o.has("filters") {
		o.d.notice(o.line("filters"), o.field("filters"), fmt.Sprintf("backend filters are %s", notImplemented))
		o.ignore("filters")
	}
	o.done()
	return b
}
