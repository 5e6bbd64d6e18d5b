package manifest

import (
	"net/netip"
)

// readBackend reads an Envoy Gateway Backend: endpoints given as an IP
// address or a DNS name, each with a port.
func readBackend(set *Set, m Meta, o *object) {
	spec := o.child("spec")
	b := &Backend{Meta: m}
	if !spec.has("endpoints") {
		spec.errorf("endpoints", "at least one endpoint is required")
	}
	for _, eo := range spec.objects("endpoints") {
		if e, ok := readEndpoint(eo); ok {
			b.Endpoints = append(b.Endpoints, e)
		}
	}
	spec.done()
	set.Backends = append(set.Backends, b)
}

func readEndpoint(o *object) (Endpoint, bool) {
	given := 0
	for _, k := range []string{"ip", "fqdn", "unix"} {
		if o.has(k) {
			given++
		}
	}
	if given != 1 {
		o.d.errorf(o.node, o.path, "exactly one of ip, fqdn or unix is required")
		o.ignore("ip", "fqdn", "unix")
		o.done()
		return Endpoint{}, false
	}
	var e Endpoint
	switch {
	case o.has("ip"):
		ip := o.child("ip")
		e.Host = ip.requiredStr("address")
		if a, err := netip.ParseAddr(e.Host); e.Host != "" && (err != nil || a.Zone() != "") {
			ip.errorf("address", "%q is not an IP address", e.Host)
		}
		e.Port = ip.port("port", true)
		ip.done()
	case o.has("fqdn"):
		fq := o.child("fqdn")
		e.Host = fq.requiredStr("hostname")
		if e.Host != "" && (!validName(e.Host) || looksLikeIP(e.Host)) {
			fq.errorf("hostname", "%q is not a DNS name", e.Host)
		}
		e.Port = fq.port("port", true)
		fq.done()
	default:
		o.d.notice(o.line("unix"), o.field("unix"), "unix domain socket endpoints are "+notImplemented)
		o.ignore("unix")
		o.done()
		return Endpoint{}, false
	}
	o.done()
	return e, e.Host != "" && e.Port != 0
}
