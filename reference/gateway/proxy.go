package gateway

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"strings"
	"sync"
	"time"
)

// Upstream answers Envoy gives when the backend cannot be used.
const (
	connectFailure = "upstream connect error or disconnect/reset before headers. reset reason: connection failure"
	connectReset   = "upstream connect error or disconnect/reset before headers. reset reason: connection termination"
)

// newTransport talks HTTP/1.1 to backends, as Envoy Gateway does by
// default, and never changes the body encoding. Not reference/internal/h1
// (a transport that wrote and read in the request's goroutine): with it no
// figure of make load was 25 % better once the gateway forwarded with
// ReverseProxy (docs/performance.md).
func newTransport() *http.Transport {
	return &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       time.Minute,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// forward sends r to the backend x.upstream with httputil.ReverseProxy,
// which copies the answer to the client: hop-by-hop headers dropped both
// ways (RFC 9110 7.6.1), a body of unknown length and server-sent events
// passed on as they come, trailers after the body, a switch of protocols
// (WebSocket) spliced, and an answer cut short after its headers aborting
// the client's response, as Envoy resets the stream. The request is
// rewritten as Envoy rewrites it (rewrite); the gateway's own forwarding,
// which saved ReverseProxy's copy of each request, made no difference of
// 25% in make load's figures (docs/performance.md).
func (g *Gateway) forward(x *exchange, r *http.Request) {
	x.upstreamStart = time.Now()
	p := &httputil.ReverseProxy{
		Transport:      g.transport,
		Rewrite:        x.rewrite,
		ModifyResponse: x.answered,
		ErrorHandler:   func(_ http.ResponseWriter, out *http.Request, err error) { upstreamFailed(x, out, err) },
		BufferPool:     copyBuffers{},
		ErrorLog:       g.proxyLog,
	}
	p.ServeHTTP(x, r)
}

// rewrite makes the request to the backend: the client's method, target,
// Host (Envoy keeps the authority) and body, with x-forwarded-for and
// x-forwarded-proto as Envoy sets them at the edge; Forwarded and
// x-forwarded-host pass unchanged, as in Envoy (ReverseProxy's Rewrite
// removes them), unless the client's Connection header names them.
func (x *exchange) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Scheme, out.URL.Host = "http", x.upstream
	*out = *out.WithContext(httptrace.WithClientTrace(out.Context(), x.tracer()))
	out.Header["X-Forwarded-For"] = []string{x.entry.XForwardedFor}
	proto := "http"
	if pr.In.TLS != nil {
		proto = "https"
	}
	out.Header["X-Forwarded-Proto"] = []string{proto}
	for _, k := range []string{"Forwarded", "X-Forwarded-Host"} {
		if v, ok := pr.In.Header[k]; ok && !namesHeader(pr.In.Header["Connection"], k) {
			out.Header[k] = v
		}
	}
}

// namesHeader tells whether a Connection header names the header key.
func namesHeader(connection []string, key string) bool {
	for _, v := range connection {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), key) {
				return true
			}
		}
	}
	return false
}

// limitHeaders are the upstream's own rate-limit headers, dropped on a
// limited route: the gateway's are the ones that count.
var limitHeaders = []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", rateLimitedHeader}

// answered logs the backend's answer; a switch of protocols is logged with
// its 101, which ReverseProxy writes on the hijacked connection.
func (x *exchange) answered(res *http.Response) error {
	x.entry.UpstreamTime = time.Since(x.upstreamStart)
	x.entry.Flags, x.entry.Details = "", "via_upstream"
	if x.limited {
		for _, k := range limitHeaders {
			delete(res.Header, k)
		}
	}
	if res.StatusCode == http.StatusSwitchingProtocols {
		x.code = res.StatusCode
	}
	return nil
}

// copyBuffers lends ReverseProxy its buffers: 32 KiB per request to copy a
// body was most of the gateway's allocations under load.
type copyBuffers struct{}

var copyBufferPool = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (copyBuffers) Get() []byte { return copyBufferPool.Get().(*[32 << 10]byte)[:] }

func (copyBuffers) Put(b []byte) { copyBufferPool.Put((*[32 << 10]byte)(b)) }

// upstreamFailed answers as Envoy does when the backend fails before
// answering: 503 with a connection failure or reset; nothing when the
// client went away.
func upstreamFailed(x *exchange, out *http.Request, err error) {
	var op *net.OpError
	switch {
	case out.Context().Err() != nil:
		x.entry.Flags, x.entry.Details = "DC", "downstream_remote_disconnect"
	case errors.As(err, &op) && op.Op == "dial", errors.Is(err, context.DeadlineExceeded):
		x.reply(http.StatusServiceUnavailable, "UF", "upstream_reset_before_response_started{connection_failure}", connectFailure)
	default:
		x.reply(http.StatusServiceUnavailable, "UC", "upstream_reset_before_response_started{connection_termination}", connectReset)
	}
}
