// Package gateway is the reference gateway: a reverse proxy configured by
// the manifests a person gives Envoy Gateway (Gateway, HTTPRoute, Backend,
// BackendTrafficPolicy, TLS Secrets) that enforces the rate-limit policy of
// the spec (sections 2.7, 3.2, 4.6, 6.3, 7, 8) the way Envoy Gateway does.
//
// Start reads a directory of manifests (see package manifest) and serves
// the listeners of its Gateways. Each file is one unit: a file with errors
// is refused whole, with every problem named by file, resource and field,
// and its last accepted version (if any) stays in force while the other
// files apply, as a refused resource holds back no other in Kubernetes; a
// change that fails as a whole (routes that do not build together, a port
// that cannot be bound) leaves the configuration in force. At start, any
// refused file refuses the start. The files a change names are read again
// (fsnotify, debounced), and the whole directory periodically; a file is
// parsed again only when its bytes changed, and a change to HTTPRoutes
// alone updates the routing table rather than building it anew (see
// routing.Table.Update), so that a change to one file of thousands costs
// that file. A new configuration is an immutable routing table swapped in
// atomically, so requests in flight finish with the table they started
// with, and a port that is no longer listed is drained, not cut.
//
// Requests: 404 (flag NR) without a matching route; the route's rate
// limits (package ratelimit): 429 with x-proxy-ratelimited: true and the
// x-ratelimit-* headers, without calling the upstream; 500 (RLSE) when the
// Redis of Global limits (or the rate limit service asked about them,
// Options.RateLimitService) is down and the gateway fails closed; 500 when
// the chosen backendRef does not resolve, and on every route of a
// BackendTrafficPolicy that Envoy Gateway's translator cannot translate (a
// Distinct header selector with invert or a value, an Exact or
// RegularExpression one without a value, a regular expression that does
// not compile: the file is read, the policy noticed as not accepted and
// not applied, as Envoy Gateway answers since v1.2); otherwise the backend, with the
// client's Host, an x-request-id (generated when absent), x-forwarded-for
// and x-forwarded-proto; 503 (UF) when it cannot be reached. One JSON line
// per request goes to the access log, in Envoy Gateway's default format
// (package accesslog).
//
// What is implemented is listed in Support; everything else found in a
// manifest is logged as not implemented when the directory is loaded.
package gateway

// Support is the manifest support matrix, for --help.
const Support = `Manifests (*.yaml, *.yml in the directory; multi-document; a v1 List too):
  Gateway (gateway.networking.k8s.io/v1, v1beta1), every Gateway whatever its class
    listeners[]: name, port, protocol HTTP | HTTPS, hostname (exact or *.),
      tls.mode Terminate, tls.certificateRefs -> Secret in the directory
      (none: a self-signed certificate), allowedRoutes.namespaces.from Same | All,
      allowedRoutes.kinds
    not served (logged): TLS, TCP, UDP listeners, TLS Passthrough, namespace selectors
  HTTPRoute (gateway.networking.k8s.io/v1, v1beta1)
    parentRefs (name, namespace, sectionName, port), hostnames, rules[].matches:
      path PathPrefix | Exact | RegularExpression, headers and queryParams
      Exact | RegularExpression, method; Gateway API precedence;
    rules[].backendRefs: Backend (gateway.envoyproxy.io) or Service (this host:
      127.0.0.1:<port>), weight; cross-namespace refs need a ReferenceGrant (not implemented)
    not implemented (logged): filters, timeouts, retry, sessionPersistence
  Backend (gateway.envoyproxy.io/v1alpha1): endpoints[].ip {address, port} | fqdn {hostname, port}
    not implemented (logged): unix endpoints, tls, appProtocols, fallback
  BackendTrafficPolicy (gateway.envoyproxy.io/v1alpha1)
    targetRefs[] / targetRef: HTTPRoute or Gateway (a route's own policy wins; oldest wins a conflict)
    rateLimit: type Global | Local (deprecated), global.rules[], local.rules[]
      limit {requests, unit Second | Minute | Hour | Day | Week | Month | Year}
      clientSelectors[]: headers[] Exact | RegularExpression | Distinct (+ invert),
        methods[], path, sourceCIDR Exact | Distinct; shared; shadowMode (Global)
      cost.request / cost.response {from Number | Metadata, number | metadata} (Global)
    a selector Envoy Gateway cannot translate (Distinct with invert or a value, no value
      otherwise, a regex that does not compile): the policy is not applied, its routes answer 500
    not implemented (logged): targetSelectors, every other feature (retry, timeout, ...)
  Secret (v1, type kubernetes.io/tls): data or stringData tls.crt, tls.key
Rate limits: fixed windows aligned to the Unix epoch (Local too, where Envoy uses token buckets);
  a request without the header (or address) a selector needs is neither counted nor limited by
  that rule and gets no headers from it; with several rules the one with the fewest requests
  remaining gives x-ratelimit-remaining and -reset. Global counters live in --redis when given;
  with --rate-limit-service, envoyproxy/ratelimit counts them, asked with Envoy Gateway's
  descriptors (its configuration written into --rate-limit-service-config).
Anything else (kinds, fields) is logged as not implemented when the directory is loaded; but a
  kind that gateway.networking.k8s.io or gateway.envoyproxy.io does not define (a misspelling)
  is an error, and the file is refused.`
