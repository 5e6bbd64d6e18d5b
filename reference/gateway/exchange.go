package gateway

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/accesslog"
)

// exchange is one request on its way through the gateway: the response
// writer that counts what is sent, and the access-log entry being filled.
type exchange struct {
	w      http.ResponseWriter
	code   int // the final status sent; 0 until then
	entry  accesslog.Entry
	client netip.Addr
	// upstream is the backend address chosen; upstreamStart when the
	// proxy began.
	upstream      string
	upstreamStart time.Time
	// limited is set when rate-limit headers were set: the upstream's own
	// are dropped.
	limited bool
	// received counts request body bytes; the transport may read the body
	// in its own goroutine.
	received atomic.Int64
	// spliced counts the bytes sent after a switch of protocols, written
	// by a goroutine of ReverseProxy's.
	spliced atomic.Int64
	// trace tells which connection to the upstream the request got.
	trace httptrace.ClientTrace
}

// newExchange starts the entry of r and gives it an x-request-id.
func newExchange(w http.ResponseWriter, r *http.Request, start time.Time) *exchange {
	x := &exchange{w: w}
	e := &x.entry
	e.Start, e.Method, e.Path, e.Protocol = start, r.Method, r.RequestURI, protocol(r)
	e.UpstreamTime = -1
	e.UserAgent, e.Authority, e.DownstreamRemote = r.UserAgent(), r.Host, r.RemoteAddr
	d, ok := r.Context().Value(downstreamKey{}).(*downstream)
	if !ok {
		d = newDownstream(r.Context().Value(http.LocalAddrContextKey), r.RemoteAddr)
	}
	x.client, e.DownstreamLocal = d.client, d.local
	if r.TLS != nil {
		e.ServerName = r.TLS.ServerName
	}
	e.RequestID = r.Header.Get("X-Request-Id")
	if e.RequestID == "" {
		e.RequestID = newRequestID()
		r.Header.Set("X-Request-Id", e.RequestID)
	}
	e.XForwardedFor = forwardedFor(r.Header.Values("X-Forwarded-For"), d.clientText)
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &countingBody{ReadCloser: r.Body, n: &x.received}
	}
	return x
}

// tracer records which connection to the backend the request got.
func (x *exchange) tracer() *httptrace.ClientTrace {
	x.trace.GotConn = x.gotConn
	return &x.trace
}

func (x *exchange) gotConn(info httptrace.GotConnInfo) {
	x.entry.UpstreamHost = info.Conn.RemoteAddr().String()
	x.entry.UpstreamLocal = info.Conn.LocalAddr().String()
}

// protocol is the protocol as Envoy logs it.
func protocol(r *http.Request) string {
	if r.ProtoMajor == 2 {
		return "HTTP/2"
	}
	return r.Proto
}

// forwardedFor appends the client to x-forwarded-for, as Envoy does at the
// edge.
func forwardedFor(prior []string, client string) string {
	if len(prior) == 0 {
		return client
	}
	return strings.Join(prior, ", ") + ", " + client
}

// downstream is what the gateway logs and counts of a client connection,
// worked out once per connection (http.Server.ConnContext) rather than on
// every request.
type downstream struct {
	client     netip.Addr // invalid when the peer is not an IP address
	clientText string     // client as x-forwarded-for carries it; empty when invalid
	local      string     // the listener's end, as the access log writes it
}

type downstreamKey struct{}

// connContext records the connection's downstream in its context.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, downstreamKey{}, newDownstream(c.LocalAddr(), c.RemoteAddr().String()))
}

// newDownstream reads a connection's ends: local a net.Addr (or nothing),
// remote as net/http's Request.RemoteAddr.
func newDownstream(local any, remote string) *downstream {
	d := &downstream{}
	if a, ok := local.(net.Addr); ok {
		d.local = a.String()
	}
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		d.client = ap.Addr().Unmap()
		d.clientText = d.client.String()
	}
	return d
}

// Header, WriteHeader, Write, Flush and Unwrap make exchange the
// http.ResponseWriter the proxy writes to.
func (x *exchange) Header() http.Header { return x.w.Header() }

func (x *exchange) WriteHeader(code int) {
	if x.code == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		x.code = code
	}
	x.w.WriteHeader(code)
}

func (x *exchange) Write(p []byte) (int, error) {
	if x.code == 0 {
		x.code = http.StatusOK
	}
	n, err := x.w.Write(p)
	x.entry.Sent += int64(n)
	return n, err
}

func (x *exchange) Flush() { _ = http.NewResponseController(x.w).Flush() }

func (x *exchange) Unwrap() http.ResponseWriter { return x.w }

// Hijack hands the client's connection to ReverseProxy once the backend
// switched protocols; what is written on it counts as sent.
func (x *exchange) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(x.w).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &countingConn{Conn: c, n: &x.spliced}, brw, nil
}

// countingConn counts the bytes written to a connection, before they go,
// so that the count is whole once the reader has them.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n - len(p)))
	return n, err
}

// reply answers without the upstream.
func (x *exchange) reply(code int, flags, details, body string) {
	x.entry.Flags, x.entry.Details = flags, details
	if body != "" {
		x.Header().Set("Content-Type", "text/plain")
	}
	x.WriteHeader(code)
	if body != "" {
		_, _ = io.WriteString(x, body)
	}
}

// finish completes the entry once the response is sent.
func (x *exchange) finish(end time.Time) *accesslog.Entry {
	e := &x.entry
	e.Code = x.code
	e.Received = x.received.Load()
	e.Sent += x.spliced.Load()
	e.Duration = end.Sub(e.Start)
	return e
}

// countingBody counts the request body bytes the upstream reads.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
