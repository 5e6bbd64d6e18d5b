package manifest

import (
	"regexp"
	"strings"
)

// The Gateway API's and Kubernetes' own patterns, so that what the API
// server would refuse is refused here too.
var (
	subdomainRE  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	labelRE      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	hostnameRE   = regexp.MustCompile(`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	headerNameRE = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+\\-.^_`|~]+$")
)

const badHostname = "%q is not a valid hostname (a lower-case DNS name, optionally starting with \"*.\"; no IP address)"

// maxRegexLen is the Gateway API's limit on a match value.
const maxRegexLen = 1024

// Methods are the Gateway API's HTTPMethod values.
var methods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

func validName(s string) bool { return len(s) <= 253 && subdomainRE.MatchString(s) }

func validNamespace(s string) bool { return len(s) <= 63 && labelRE.MatchString(s) }

// validHostname accepts a DNS name, optionally prefixed by the wildcard
// label "*."; IP addresses are not hostnames in the Gateway API.
func validHostname(s string) bool {
	return len(s) <= 253 && hostnameRE.MatchString(s) && !looksLikeIP(s)
}

func looksLikeIP(s string) bool {
	return strings.Trim(s, "0123456789.") == "" || strings.Contains(s, ":")
}

// name reads a required name (an RFC 1123 subdomain).
func (o *object) name(key string) string {
	v := o.requiredStr(key)
	if v != "" && !validName(v) {
		o.errorf(key, "%q is not a valid name (lower-case letters, digits, '-' and '.', at most 253)", v)
	}
	return v
}

// hostname reads an optional hostname.
func (o *object) hostname(key string) string {
	v := o.str(key)
	if v != "" && !validHostname(v) {
		o.errorf(key, badHostname, v)
	}
	return v
}

// regex reads a RE2 regular expression, which must match the whole value
// (as Envoy's safe_regex does).
func (o *object) regex(key, value string) *regexp.Regexp {
	if len(value) > maxRegexLen {
		o.errorf(key, "is longer than %d characters", maxRegexLen)
		return nil
	}
	re, err := regexp.Compile(`^(?:` + value + `)$`)
	if err != nil {
		o.errorf(key, "invalid regular expression: %v", err)
		return nil
	}
	return re
}

// headerName reads a required HTTP header name.
func (o *object) headerName(key string) string {
	v := o.requiredStr(key)
	if v != "" && (len(v) > 256 || !headerNameRE.MatchString(v)) {
		o.errorf(key, "%q is not a valid HTTP header name", v)
	}
	return v
}

// port reads a port number; required when asked.
func (o *object) port(key string, required bool) int {
	if required && !o.has(key) {
		o.used[key] = true
		o.errorf(key, "is required")
		return 0
	}
	p, _ := o.integer(key, 1, 65535)
	return int(p)
}
