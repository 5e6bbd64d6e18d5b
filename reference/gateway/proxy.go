package gateway

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/h1"
)

// Upstream answers Envoy gives when the backend cannot be used.
const (
	connectFailure = "upstream connect error or disconnect/reset before headers. reset reason: connection failure"
	connectReset   = "upstream connect error or disconnect/reset before headers. reset reason: connection termination"
)

// newTransport talks HTTP/1.1 to backends, as Envoy Gateway does by
// default, and never changes the body encoding. h1 writes and reads in the
// request's goroutine; requests with a streamed body or an upgrade go
// through the http.Transport.
func newTransport() *h1.Transport {
	return h1.New(&http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       time.Minute,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	})
}

// forward sends r to the backend x.upstream and copies its answer to the
// client. It does what httputil.ReverseProxy did here, without the copy of
// the request and its headers that ReverseProxy makes and the gateway does
// not need (17 allocations per request), and as Envoy does where they
// differ: Forwarded and x-forwarded-host pass unchanged, and a switch of
// protocols is logged with its 101 and bytes. Hop-by-hop headers are
// dropped both ways, a body of unknown length is flushed as it comes,
// trailers follow the body. An answer cut short after its headers aborts
// the client's response, as Envoy resets the stream.
func (g *Gateway) forward(x *exchange, r *http.Request) {
	out := outbound(x, r)
	x.upstreamStart = time.Now()
	res, err := g.transport.RoundTrip(out)
	if err != nil {
		upstreamFailed(x, out, err)
		return
	}
	x.entry.UpstreamTime = time.Since(x.upstreamStart)
	x.entry.Flags, x.entry.Details = "", "via_upstream"
	if res.StatusCode == http.StatusSwitchingProtocols {
		g.switchProtocols(x, out, res)
		return
	}
	announced := copyAnswerHeader(x.Header(), res, x.limited)
	x.WriteHeader(res.StatusCode)
	if err := copyBody(x, res.Body, streamed(res)); err != nil {
		res.Body.Close()
		panic(http.ErrAbortHandler) // net/http resets the client's connection; logExchange logs UR
	}
	res.Body.Close() // reads the trailers
	copyTrailers(x, res.Trailer, announced)
}

// outbound is the request to the backend: the client's method, target,
// Host (Envoy keeps the authority) and body; its headers without the
// hop-by-hop ones, with x-forwarded-for and x-forwarded-proto as Envoy
// sets them at the edge. r and its headers are left as they are: net/http
// still reads them (Connection: close).
func outbound(x *exchange, r *http.Request) *http.Request {
	out := r.WithContext(httptrace.WithClientTrace(r.Context(), x.tracer()))
	u := *r.URL
	u.Scheme, u.Host = "http", x.upstream
	out.URL, out.RequestURI, out.Close = &u, "", false
	if r.ContentLength == 0 {
		out.Body = nil
	}
	h := make(http.Header, len(r.Header)+2)
	connection := r.Header["Connection"]
	for k, v := range r.Header {
		if !hopByHop(k, connection) {
			h[k] = v
		}
	}
	if hasToken(r.Header["Te"], "trailers") {
		h["Te"] = []string{"trailers"}
	}
	if up := upgradeOf(r.Header); up != "" {
		h["Connection"], h["Upgrade"] = []string{"Upgrade"}, []string{up}
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = []string{""} // not Go's own
	}
	h["X-Forwarded-For"] = []string{x.entry.XForwardedFor}
	proto := "http"
	if r.TLS != nil {
		proto = "https"
	}
	h["X-Forwarded-Proto"] = []string{proto}
	out.Header = h
	return out
}

// hopHeaders are meant for one connection, never forwarded (RFC 9110
// 7.6.1); so are those its Connection header names.
var hopHeaders = map[string]bool{
	"Connection": true, "Proxy-Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true,
	"Proxy-Authorization": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
}

func hopByHop(key string, connection []string) bool {
	return hopHeaders[key] || (len(connection) > 0 && hasToken(connection, key))
}

// hasToken tells whether a comma-separated header names token, in any case.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// upgradeOf is the protocol a request asks to switch to; empty for none.
func upgradeOf(h http.Header) string {
	if !hasToken(h["Connection"], "Upgrade") {
		return ""
	}
	return h.Get("Upgrade")
}

// limitHeaders are the upstream's own rate-limit headers, dropped on a
// limited route: the gateway's are the ones that count.
var limitHeaders = map[string]bool{
	"X-Ratelimit-Limit": true, "X-Ratelimit-Remaining": true, "X-Ratelimit-Reset": true, rateLimitedHeader: true,
}

// copyAnswerHeader adds the backend's headers to dst, but the hop-by-hop
// ones, and announces its trailers; it returns how many were announced.
func copyAnswerHeader(dst http.Header, res *http.Response, limited bool) int {
	connection := res.Header["Connection"]
	for k, v := range res.Header {
		if hopByHop(k, connection) || (limited && limitHeaders[k]) {
			continue
		}
		if old, ok := dst[k]; ok {
			dst[k] = append(old, v...)
		} else {
			dst[k] = v // res is not used again: no copy
		}
	}
	if len(res.Trailer) == 0 {
		return 0
	}
	keys := make([]string, 0, len(res.Trailer))
	for k := range res.Trailer {
		keys = append(keys, k)
	}
	dst.Add("Trailer", strings.Join(keys, ", "))
	return len(keys)
}

// copyTrailers sends the backend's trailers: those announced as such, the
// others with net/http's prefix for trailers not announced.
func copyTrailers(x *exchange, trailer http.Header, announced int) {
	if len(trailer) == 0 {
		return
	}
	x.Flush() // the headers go now; what is set from here on is a trailer
	prefix := ""
	if len(trailer) != announced {
		prefix = http.TrailerPrefix
	}
	h := x.Header()
	for k, v := range trailer {
		h[prefix+k] = append(h[prefix+k], v...)
	}
}

// streamed tells an answer to pass on as it comes rather than buffered:
// one of unknown length, or server-sent events.
func streamed(res *http.Response) bool {
	if res.ContentLength == -1 {
		return true
	}
	ct, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "text/event-stream")
}

// copyBody copies the answer's body to x, flushing each piece when
// streamed; the error is the first read or write failure.
func copyBody(x *exchange, body io.Reader, streamed bool) error {
	buf := copyBuffers.Get().(*[32 << 10]byte)
	defer copyBuffers.Put(buf)
	for {
		n, rerr := body.Read(buf[:])
		if n > 0 {
			if _, err := x.Write(buf[:n]); err != nil {
				return err
			}
			if streamed {
				x.Flush()
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// copyBuffers lends copyBody its buffers: 32 KiB per request to copy a
// body was most of the gateway's allocations under load.
var copyBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// switchProtocols splices the client's connection and the backend's once
// the backend agreed to switch (WebSocket), until either side closes.
func (g *Gateway) switchProtocols(x *exchange, out *http.Request, res *http.Response) {
	backend, ok := res.Body.(io.ReadWriteCloser)
	if !ok || !strings.EqualFold(upgradeOf(res.Header), upgradeOf(out.Header)) {
		res.Body.Close()
		upstreamFailed(x, out, errors.New("the backend switched to another protocol than asked"))
		return
	}
	client, brw, err := http.NewResponseController(x.w).Hijack()
	if err != nil {
		backend.Close()
		x.reply(http.StatusInternalServerError, "", "upgrade_failed", "")
		return
	}
	x.code = res.StatusCode
	res.Body = nil
	if err = res.Write(brw); err == nil {
		err = brw.Flush()
	}
	done := make(chan struct{}, 2)
	if err == nil {
		go func() { _, _ = io.Copy(backend, brw); done <- struct{}{} }()
		go func() { n, _ := io.Copy(client, backend); x.entry.Sent = n; done <- struct{}{} }()
		<-done
	}
	// Either side closing ends both; Sent is read once both copies are over.
	client.Close()
	backend.Close()
	if err == nil {
		<-done
	}
}

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
