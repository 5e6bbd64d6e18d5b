package manifest

import "fmt"

// readGateway reads a Gateway. Every Gateway is served, whatever its
// gatewayClassName: there is one controller here.
func readGateway(set *Set, m Meta, o *object) {
	spec := o.child("spec")
	if !spec.present() {
		o.errorf("spec", "is required")
		return
	}
	spec.requiredStr("gatewayClassName")
	g := &Gateway{Meta: m}
	names := map[string]bool{}
	if !spec.has("listeners") {
		spec.errorf("listeners", "at least one listener is required")
	}
	for _, lo := range spec.objects("listeners") {
		l := readListener(lo)
		if l == nil {
			continue
		}
		if names[l.Name] {
			lo.errorf("name", "listener name %q is used twice", l.Name)
		}
		names[l.Name] = true
		g.Listeners = append(g.Listeners, l)
	}
	spec.done()
	set.Gateways = append(set.Gateways, g)
}

// readListener reads one listener; nil for a protocol this gateway does not
// serve (noticed) or an invalid one (error recorded).
func readListener(o *object) *Listener {
	l := &Listener{Field: o.path, Line: lineOf(o.node, o.d.line)}
	l.Name = o.requiredStr("name")
	if l.Name != "" && !validName(l.Name) {
		o.errorf("name", "%q is not a valid listener name", l.Name)
	}
	l.Hostname = o.hostname("hostname")
	l.Port = o.port("port", true)
	l.Protocol = o.requiredStr("protocol")
	switch l.Protocol {
	case "HTTP":
		if o.has("tls") {
			o.errorf("tls", "must not be set for protocol HTTP")
		}
	case "HTTPS":
		if !readListenerTLS(o, l) {
			return nil
		}
	case "TLS", "TCP", "UDP":
		o.d.notice(o.line("protocol"), o.field("protocol"), fmt.Sprintf("protocol %s is not implemented by this gateway; listener %q is not served", l.Protocol, l.Name))
		o.ignore("tls", "allowedRoutes", "hostname")
		o.done()
		return nil
	case "":
		return nil
	default:
		o.errorf("protocol", "unsupported protocol %q; valid: HTTP, HTTPS (TLS, TCP and UDP are accepted, not served)", l.Protocol)
		return nil
	}
	readAllowedRoutes(o.child("allowedRoutes"), l)
	o.done()
	return l
}

// readListenerTLS reads an HTTPS listener's tls block. Envoy Gateway
// requires certificateRefs; here none means a self-signed certificate, so
// a local demo needs no Secret. false: the listener is not served.
func readListenerTLS(o *object, l *Listener) bool {
	t := o.child("tls")
	switch t.enum("mode", "Terminate", "Terminate", "Passthrough") {
	case "Passthrough":
		t.d.notice(t.line("mode"), t.field("mode"), fmt.Sprintf("TLS passthrough is not implemented by this gateway; listener %q is not served", l.Name))
		t.ignore("certificateRefs", "options", "frontendValidation")
		t.done()
		o.ignore("allowedRoutes")
		o.done()
		return false
	}
	for _, r := range t.objects("certificateRefs") {
		ref := Ref{Group: r.str("group"), Kind: r.enum("kind", "Secret", "Secret"), Name: r.name("name"),
			Namespace: r.str("namespace"), Field: r.path, Line: lineOf(r.node, r.d.line)}
		if ref.Group != "" && ref.Group != "core" {
			r.errorf("group", "must be empty (the core group of Secret)")
		}
		r.done()
		l.Certificates = append(l.Certificates, ref)
	}
	t.done()
	return true
}

// readAllowedRoutes reads which routes may attach to a listener.
func readAllowedRoutes(o *object, l *Listener) {
	ns := o.child("namespaces")
	switch ns.enum("from", "Same", "Same", "All", "Selector") {
	case "All":
		l.AllNamespaces = true
	case "Selector":
		ns.d.notice(ns.line("from"), ns.field("from"), "namespace selectors are not implemented by this gateway; only routes of the Gateway's namespace attach (as with Same)")
		ns.ignore("selector")
	}
	ns.done()
	if o.has("kinds") {
		l.NoHTTPRoutes = true
		for _, k := range o.objects("kinds") {
			group := k.str("group")
			if !k.has("group") {
				group = GatewayAPIGroup
			}
			if k.requiredStr("kind") == "HTTPRoute" && group == GatewayAPIGroup {
				l.NoHTTPRoutes = false
			}
			k.done()
		}
	}
	o.done()
}
