package manifest

import (
	"crypto/tls"
	"net/netip"
	"regexp"
	"time"
)

// Set is every resource of a configuration directory, in file order.
type Set struct {
	Gateways []*Gateway
	Routes   []*HTTPRoute
	Backends []*Backend
	Policies []*BackendTrafficPolicy
	Secrets  []*Secret
}

// Meta identifies a resource and where it was read.
type Meta struct {
	Kind      string
	Namespace string // "default" when the manifest names none
	Name      string
	Created   time.Time // metadata.creationTimestamp; zero when absent
	File      string
	Line      int
}

// ID is namespace/name.
func (m *Meta) ID() string { return m.Namespace + "/" + m.Name }

// String is "Kind namespace/name", the form errors and notices use.
func (m *Meta) String() string { return m.Kind + " " + m.ID() }

// Ref is a field that names another resource, with the place it is written
// (for notices about references that do not resolve).
type Ref struct {
	Group, Kind, Namespace, Name string
	Field                        string
	Line                         int
}

// Gateway is a gateway.networking.k8s.io Gateway: its listeners decide the
// ports and protocols served.
type Gateway struct {
	Meta
	Listeners []*Listener // only HTTP and HTTPS listeners; others are noticed
}

// Listener is one port/protocol/hostname a Gateway serves.
type Listener struct {
	Name     string
	Hostname string // empty: every host
	Port     int
	Protocol string // "HTTP" or "HTTPS"
	// Certificates are the TLS Secrets of an HTTPS listener; none means a
	// self-signed certificate.
	Certificates []Ref
	// AllNamespaces admits routes of every namespace (allowedRoutes
	// namespaces.from All) rather than the Gateway's own.
	AllNamespaces bool
	// NoHTTPRoutes is set when allowedRoutes.kinds leaves HTTPRoute out.
	NoHTTPRoutes bool
	Field        string // spec.listeners[i]
	Line         int
}

// HTTPRoute is a gateway.networking.k8s.io HTTPRoute.
type HTTPRoute struct {
	Meta
	Parents   []*ParentRef
	Hostnames []string
	Rules     []*RouteRule
}

// ParentRef attaches a route to a Gateway, or to one of its listeners.
type ParentRef struct {
	Ref
	SectionName string // a listener name; empty: every listener
	Port        int    // 0: every port
}

// RouteRule is one rule of an HTTPRoute.
type RouteRule struct {
	Matches  []*RouteMatch // at least one: no matches means PathPrefix "/"
	Backends []*BackendRef
	Field    string
}

// Path match types.
const (
	PathExact  = "Exact"
	PathPrefix = "PathPrefix"
	PathRegex  = "RegularExpression"
)

// RouteMatch is one match of a rule: every condition must hold.
type RouteMatch struct {
	PathType  string
	PathValue string
	PathRE    *regexp.Regexp // for RegularExpression
	Headers   []*ValueMatch
	Query     []*ValueMatch
	Method    string // empty: any
}

// ValueMatch compares a header or query parameter: Exact, or RE when set.
type ValueMatch struct {
	Name  string
	Value string
	RE    *regexp.Regexp
}

// BackendRef is one backend of a rule.
type BackendRef struct {
	Ref
	Port   int // required for a Service
	Weight int
}

// Backend is a gateway.envoyproxy.io Backend: addresses outside Kubernetes.
type Backend struct {
	Meta
	Endpoints []Endpoint
}

// Endpoint is one address of a Backend: an IP address or a DNS name.
type Endpoint struct {
	Host string
	Port int
}

// BackendTrafficPolicy is a gateway.envoyproxy.io BackendTrafficPolicy; this
// gateway acts on its rate limits.
type BackendTrafficPolicy struct {
	Meta
	Targets []Ref
	// Global and Local are the rules of rateLimit.global and
	// rateLimit.local; nil when that block is absent.
	Global, Local []*RateLimitRule
	// Invalid is why Envoy Gateway's translator cannot turn the rate
	// limit into Envoy's (its Accepted condition: False, reason Invalid,
	// with this message); empty when it can. Such a policy is a valid
	// resource, not applied: the routes it targets answer 500.
	Invalid string
}

// RateLimitRule is one rule: a limit per window for the requests its
// selectors pick.
type RateLimitRule struct {
	Requests  int64
	Unit      string
	Window    time.Duration
	Selectors []*ClientSelector // all must hold; none: every request
	Shared    bool
	Shadow    bool // count but never refuse (Global only)
	// RequestCost and ResponseCost are the rule's cost (Envoy Gateway's
	// rules[].cost.request and .response): what a request adds to its
	// counters, 1 when RequestCost is nil, and what its response adds
	// once it is complete, nothing when ResponseCost is nil. Global only.
	RequestCost, ResponseCost *Cost
	Field                     string
}

// Cost is a RateLimitCostSpecifier: from Number (a fixed number, 0 only
// checks the counters) or from Metadata (a value of the request's dynamic
// metadata, which Envoy reads with %DYNAMIC_METADATA(namespace:key)%).
type Cost struct {
	From                   string // CostFromNumber or CostFromMetadata
	Number                 uint64
	MetadataNamespace, Key string
}

// The sources of a cost (Envoy Gateway's RateLimitCostFrom).
const (
	CostFromNumber   = "Number"
	CostFromMetadata = "Metadata"
)

// MaxCost is the largest cost Envoy accepts (RateLimit.HitsAddend's
// number: at most 1e9).
const MaxCost = 1_000_000_000

// Header match types of a client selector.
const (
	MatchExact    = "Exact"
	MatchRegex    = "RegularExpression"
	MatchDistinct = "Distinct"
)

// ClientSelector picks requests; every condition must hold.
type ClientSelector struct {
	Headers []*HeaderSelector
	Methods []*MethodSelector // any one
	Path    *PathSelector
	Source  *SourceSelector
}

// HeaderSelector matches one request header.
type HeaderSelector struct {
	Name   string
	Type   string // MatchExact, MatchRegex or MatchDistinct
	Value  string
	RE     *regexp.Regexp
	Invert bool
}

// MethodSelector matches the request method.
type MethodSelector struct {
	Method string
	Invert bool
}

// PathSelector matches the request path.
type PathSelector struct {
	Type   string // PathExact, PathPrefix or PathRegex
	Value  string
	RE     *regexp.Regexp
	Invert bool
}

// SourceSelector matches the client address against a CIDR; Distinct
// gives every address its own counter.
type SourceSelector struct {
	Prefix   netip.Prefix
	Distinct bool
}

// Secret is a v1 Secret; only kubernetes.io/tls Secrets are used, as
// listener certificates.
type Secret struct {
	Meta
	Type        string
	Certificate *tls.Certificate // parsed tls.crt and tls.key of a TLS Secret
}

// SecretTypeTLS is the type of a Secret a listener can use.
const SecretTypeTLS = "kubernetes.io/tls"
