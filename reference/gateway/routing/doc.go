// Package routing turns a configuration (manifest.Set) into an immutable
// routing table: which ports are served, with which certificates, and where
// each request goes, with the rate limits of its route.
//
// The Gateway API's rules, as Envoy Gateway applies them:
//
//   - Listeners decide ports and protocols. Listeners of any Gateway that
//     share a port must share the protocol and differ in hostname.
//   - A route attaches to the listeners its parentRefs name (sectionName,
//     port) that admit it (allowedRoutes: namespaces Same or All, kinds).
//     Its effective hostnames are the intersection of the listener's
//     hostname and its own; a route with none left does not attach.
//   - A request is routed by its Host header to the most specific hostname
//     served on its port (exact, then the longest "*." wildcard, then any),
//     then to the first matching route in Gateway API precedence: Exact
//     path, then RegularExpression, then the longest PathPrefix; then a
//     method match; then more header matches; then more query matches;
//     then the oldest route, then namespace/name, then rule and match
//     order. No match: 404.
//   - Backends are chosen by weight. A Backend (gateway.envoyproxy.io)
//     gives IP or DNS endpoints; a Service ref means 127.0.0.1:<port> (there
//     is no Kubernetes here). A ref that does not resolve keeps its share of
//     the weight and those requests get 500, as the Gateway API requires.
//   - A BackendTrafficPolicy targeting an HTTPRoute overrides one
//     targeting its Gateway; of several on the same target the oldest wins
//     (then namespace/name) and the others are noticed as conflicted.
//
// References that do not resolve are notices (logged), not errors: they
// are route conditions in the Gateway API. Errors are what cannot be
// served at all: port conflicts, missing or unusable certificates.
package routing
