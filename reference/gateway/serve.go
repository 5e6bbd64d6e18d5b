package gateway

import (
	"context"
	"net/http"

	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
	"github.com/fortune-tck/fortune-tck/reference/gateway/routing"
)

// Envoy's bodies and header for refused requests.
const (
	localLimitedBody   = "local_rate_limited"
	rateLimitedHeader  = "X-Proxy-Ratelimited"
	rateLimitedDetails = "request_rate_limited"
)

// handler serves the listener port (the number in the manifests).
func (g *Gateway) handler(port int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.serve(port, w, r) })
}

// serve routes one request: 404 without a route, the rate limit, then the
// backend. The routing table is read once, so a reload never changes a
// request half-way.
func (g *Gateway) serve(port int, w http.ResponseWriter, r *http.Request) {
	x := newExchange(w, r, g.o.Now())
	defer g.logExchange(x)
	rt := g.route(port, r)
	if rt == nil {
		x.reply(http.StatusNotFound, "NR", "route_not_found", "")
		return
	}
	x.entry.RouteName, x.entry.UpstreamCluster = rt.Name, rt.Cluster
	if rt.Limits.HasResponseCost() {
		// Counted when the response is complete, as Envoy counts it when
		// the stream ends; the client leaving does not cancel it.
		defer g.limiter.Done(context.WithoutCancel(r.Context()), r, x.client, rt.Limits)
	}
	if !g.admit(x, r, rt) {
		return
	}
	addr, ok := rt.Backends.Pick()
	if !ok {
		x.reply(http.StatusInternalServerError, "", "direct_response", "")
		return
	}
	x.upstream = addr
	g.forward(x, r)
}

// route finds the route of r in the current table; nil when none.
func (g *Gateway) route(port int, r *http.Request) *routing.Route {
	p := g.config.Load().table.Port(port)
	if p == nil {
		return nil
	}
	return p.Lookup(r)
}

// admit applies the route's rate limits, sets the headers, and answers
// when the request may not go on.
func (g *Gateway) admit(x *exchange, r *http.Request, rt *routing.Route) bool {
	d := g.limiter.Check(r.Context(), r, x.client, rt.Limits)
	d.SetHeaders(x.Header())
	x.limited = d.Applied()
	switch d.Outcome {
	case ratelimit.Limited:
		x.Header().Set(rateLimitedHeader, "true")
		if d.Local {
			x.reply(http.StatusTooManyRequests, "RL", "local_rate_limited", localLimitedBody)
		} else {
			x.reply(http.StatusTooManyRequests, "RL", rateLimitedDetails, "")
		}
		return false
	case ratelimit.Failed:
		x.reply(http.StatusInternalServerError, "RLSE", "rate_limiter_error", "")
		return false
	}
	return true
}

// logExchange writes the access-log line, also when the proxy aborts the
// response half-way (it panics with http.ErrAbortHandler, which net/http
// handles).
func (g *Gateway) logExchange(x *exchange) {
	if v := recover(); v != nil {
		x.entry.Flags, x.entry.Details = "UR", "upstream_reset_after_response_started"
		defer panic(v)
	}
	_ = g.access.Write(x.finish(g.o.Now()))
}
