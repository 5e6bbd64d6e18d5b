package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/h1"
)

// Upstream answers Envoy gives when the backend cannot be used.
const (
	connectFailure = "upstream connect error or disconnect/reset before headers. reset reason: connection failure"
	connectReset   = "upstream connect error or disconnect/reset before headers. reset reason: connection termination"
)

// newProxy is the reverse proxy to the backends. One proxy serves every
// route: the backend chosen for a request travels in its context.
func newProxy(log *slog.Logger) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite:        rewrite,
		Transport:      h1.New(newTransport()),
		ModifyResponse: modifyResponse,
		ErrorHandler:   proxyError,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		BufferPool:     bufferPool{},
	}
}

// bufferPool lends the proxy its copy buffers. Without it, ReverseProxy
// allocates 32 KiB per request to copy the body: under load that was most
// of the gateway's allocations and kept the garbage collector busy.
type bufferPool struct{}

var copyBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (bufferPool) Get() []byte { return copyBuffers.Get().(*[32 << 10]byte)[:] }

func (bufferPool) Put(b []byte) {
	if len(b) == 32<<10 {
		copyBuffers.Put((*[32 << 10]byte)(b))
	}
}

// newTransport talks HTTP/1.1 to backends, as Envoy Gateway does by
// default, and never changes the body encoding.
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

// rewrite sends the request to the chosen backend with the client's Host
// (Envoy keeps the authority), its x-request-id, and x-forwarded-for and
// x-forwarded-proto as Envoy sets them at the edge.
func rewrite(pr *httputil.ProxyRequest) {
	x := exchangeOf(pr.In.Context())
	pr.Out.URL.Scheme, pr.Out.URL.Host = "http", x.upstream
	pr.Out.Host = pr.In.Host
	pr.Out.Header.Set("X-Forwarded-For", x.entry.XForwardedFor)
	proto := "http"
	if pr.In.TLS != nil {
		proto = "https"
	}
	pr.Out.Header.Set("X-Forwarded-Proto", proto)
	x.upstreamStart = time.Now()
}

// modifyResponse drops the upstream's own rate-limit headers on a limited
// route: the gateway's are the ones that count.
func modifyResponse(res *http.Response) error {
	x := exchangeOf(res.Request.Context())
	x.entry.UpstreamTime = time.Since(x.upstreamStart)
	x.entry.Flags, x.entry.Details = "", "via_upstream"
	if x.limited {
		for _, h := range []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "X-Proxy-Ratelimited"} {
			res.Header.Del(h)
		}
	}
	return nil
}

// proxyError answers as Envoy does when the backend fails before
// answering: 503 with a connection failure or reset; nothing when the
// client went away.
func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	x := exchangeOf(r.Context())
	var op *net.OpError
	switch {
	case r.Context().Err() != nil:
		x.entry.Flags, x.entry.Details = "DC", "downstream_remote_disconnect"
	case errors.As(err, &op) && op.Op == "dial", errors.Is(err, context.DeadlineExceeded):
		x.reply(http.StatusServiceUnavailable, "UF", "upstream_reset_before_response_started{connection_failure}", connectFailure)
	default:
		x.reply(http.StatusServiceUnavailable, "UC", "upstream_reset_before_response_started{connection_termination}", connectReset)
	}
}
