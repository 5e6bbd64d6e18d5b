package routing

import (
	"net"
	"strings"
)

// intersect is the hostname a route serves on a listener: the more
// specific of the two when one includes the other; ok=false when they are
// disjoint. An empty hostname means every host.
func intersect(listener, route string) (string, bool) {
	switch {
	case listener == "":
		return route, true
	case route == "":
		return listener, true
	case hostMatches(listener, route):
		return route, true
	case hostMatches(route, listener):
		return listener, true
	}
	return "", false
}

// hostMatches tells whether pattern includes host: equal, or pattern is
// "*.suffix" and host is a name (or a narrower wildcard) under suffix.
// "*.example.com" does not include example.com itself.
func hostMatches(pattern, host string) bool {
	if pattern == host {
		return true
	}
	suffix, ok := strings.CutPrefix(pattern, "*")
	if !ok {
		return false
	}
	host = strings.TrimPrefix(host, "*")
	return len(host) > len(suffix) && strings.HasSuffix(host, suffix)
}

// requestHost is the Host header without port, lower case, as routed.
func requestHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// moreSpecific orders hostnames: exact names before wildcards, longer
// before shorter, the empty (any) hostname last.
func moreSpecific(a, b string) bool {
	aw, bw := strings.HasPrefix(a, "*") || a == "", strings.HasPrefix(b, "*") || b == ""
	if aw != bw {
		return !aw
	}
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a < b
}
