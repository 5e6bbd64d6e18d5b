// Package ratelimit enforces the rate limits of Envoy Gateway's
// BackendTrafficPolicy the way Envoy and envoyproxy/ratelimit do, so that
// the reference gateway answers as Envoy Gateway would.
//
// Windows are fixed blocks aligned to the Unix epoch: a rule of N per unit
// admits the requests whose counter, after being incremented, is at most N
// within the block [now - now%w, now - now%w + w). Counters are named after
// the policy, the rule, the route (unless the rule is shared), the values of
// Distinct selectors and the window start, so every gateway that shares a
// Store shares the counters.
//
// A rule applies to a request when all its client selectors hold; a
// Distinct header or source selector adds the value to the counter name. A
// request without the header a selector names is neither counted nor
// limited by that rule, and gets no rate-limit headers from it (Envoy's
// Global behaviour; the spec leaves it "not shown").
//
// Local rules are checked first, in process memory; a request they refuse
// never reaches the Global counters (Envoy's filter order). They count in
// fixed windows too (Envoy uses token buckets), and a request that no
// selector of a rule picks is counted only by the rules without selectors
// (Envoy's default bucket). Global rules are
// counted in one Store round trip per request; a request is refused when any
// applied rule is over its limit. On every response where some rule applied,
// the headers of draft-polli-ratelimit-headers-03 are set from the applied
// rule with the fewest requests remaining:
//
//	x-ratelimit-limit: 3, 3;w=60
//	x-ratelimit-remaining: 2
//	x-ratelimit-reset: 41
//
// with one "<limit>;w=<seconds>" item per applied rule.
//
// When the Global store fails (Redis unreachable), the request passes and a
// log line says so, at most once per FailureLogInterval; with FailClosed the
// request is refused as Envoy Gateway does with failClosed (500, response
// flag RLSE).
//
// With a Service, Global rules are not counted here: they are asked of an
// envoy.service.ratelimit.v3 service (envoyproxy/ratelimit, the one Envoy
// Gateway deploys) with the descriptors Envoy Gateway makes Envoy send
// (descriptors.go), and the headers and the 429 come from its answers as
// Envoy makes them; ServiceConfig is that service's configuration for the
// same rules, as Envoy Gateway generates it. A failing service is a failing
// store: FailClosed decides.
package ratelimit
