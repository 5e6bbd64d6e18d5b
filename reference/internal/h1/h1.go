// Package h1 is an HTTP/1.1 client transport that writes a request and reads its answer in the caller's
// goroutine, over its own pool of kept-alive connections. http.Transport hands every request to a write
// goroutine of its connection and the answer back from a read goroutine; under load those hand-offs and
// wake-ups cost as much as the request itself (profiles of the gateway and of the fortune service's
// check_token calls). Requests this transport cannot send so, it passes to an http.Transport: HTTPS, a
// protocol upgrade, a body that is not in memory, a request for a proxy.
package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// maxInlineBody is the largest request body sent inline; a body must also be replayable (GetBody set), as
// http.NewRequest makes it for a string, bytes or bytes.Reader.
const maxInlineBody = 1 << 20

// Transport is an http.RoundTripper; its zero value is not usable: see New.
type Transport struct {
	fallback *http.Transport
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	maxIdle  int           // per host
	idleFor  time.Duration // 0: no limit
	mu       sync.Mutex
	idle     map[string][]*conn // by host:port, most recently used last
}

// New returns a Transport that sends what it cannot send inline through fallback, and takes fallback's
// dialer, idle connections per host and idle timeout for its own pool.
func New(fallback *http.Transport) *Transport {
	t := &Transport{fallback: fallback, dial: fallback.DialContext, maxIdle: fallback.MaxIdleConnsPerHost,
		idleFor: fallback.IdleConnTimeout, idle: make(map[string][]*conn)}
	if t.dial == nil {
		t.dial = (&net.Dialer{}).DialContext
	}
	if t.maxIdle <= 0 {
		t.maxIdle = http.DefaultMaxIdleConnsPerHost
	}
	return t
}

// conn is one connection to a server.
type conn struct {
	net.Conn
	host     string
	br       *bufio.Reader
	bw       *bufio.Writer
	idleFrom time.Time
	// local and remote are the connection's ends, named once: a trace
	// asks for them on every request (the gateway's access log), and
	// formatting them was 2% of its CPU.
	local, remote *namedAddr
}

func newConn(nc net.Conn, host string) *conn {
	return &conn{Conn: nc, host: host, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc),
		local: nameAddr(nc.LocalAddr()), remote: nameAddr(nc.RemoteAddr())}
}

// namedAddr is an address whose String is computed once.
type namedAddr struct {
	net.Addr
	name string
}

func nameAddr(a net.Addr) *namedAddr { return &namedAddr{Addr: a, name: a.String()} }

func (a *namedAddr) String() string { return a.name }

// LocalAddr and RemoteAddr are those of the connection, with their names.
func (c *conn) LocalAddr() net.Addr { return c.local }

func (c *conn) RemoteAddr() net.Addr { return c.remote }

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !inline(req) || t.proxied(req) {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	for retried := false; ; retried = true {
		c, reused, err := t.get(ctx, req)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		res, err := t.exchange(c, req)
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A kept-alive connection the server closed while idle fails at once: an idempotent request goes
		// once more, on a new connection. Others never go twice (get checked the connection first).
		if !reused || retried || !idempotent(req) {
			return nil, err
		}
		if req, err = rewound(req); err != nil {
			return nil, err
		}
	}
}

// CloseIdleConnections closes the idle connections of both pools.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*conn)
	t.mu.Unlock()
	for _, cs := range idle {
		for _, c := range cs {
			c.Close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// inline tells a request this transport sends itself: plain HTTP, no protocol to switch to, and no body or
// a small one it can write again.
func inline(req *http.Request) bool {
	if req.URL.Scheme != "http" || req.Header.Get("Upgrade") != "" {
		return false
	}
	if req.Body == nil || req.Body == http.NoBody {
		return true
	}
	return req.GetBody != nil && req.ContentLength >= 0 && req.ContentLength <= maxInlineBody
}

// proxied tells a request that goes through the fallback's proxy (HTTP_PROXY, for the fortune service's
// default transport): the proxy, not this pool, carries it.
func (t *Transport) proxied(req *http.Request) bool {
	if t.fallback.Proxy == nil {
		return false
	}
	u, err := t.fallback.Proxy(req)
	return err != nil || u != nil
}

// idempotent is http.Transport's rule for a request it may send twice.
func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// rewound is a copy of req with its body from the start.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := *req
	r.Body = body
	return &r, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// get takes an idle connection to the request's host, or dials one. A request that may not go twice gets
// only a connection the server has not closed.
func (t *Transport) get(ctx context.Context, req *http.Request) (c *conn, reused bool, err error) {
	host := req.URL.Host
	for c = t.takeIdle(host); c != nil; c = t.takeIdle(host) {
		if idempotent(req) || c.open() {
			reused = true
			break
		}
		c.Close()
	}
	if c == nil {
		nc, err := t.dial(ctx, "tcp", host)
		if err != nil {
			return nil, false, err
		}
		c = newConn(nc, host)
	}
	if tr := httptrace.ContextClientTrace(ctx); tr != nil && tr.GotConn != nil {
		tr.GotConn(httptrace.GotConnInfo{Conn: c, Reused: reused})
	}
	return c, reused, nil
}

// open tells whether an idle connection is still open: no end from the server and no bytes nobody asked for
// (peeked at without waiting, in one system call; an idle connection has nothing buffered).
func (c *conn) open() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	return peekOpen(c.Conn)
}

func (t *Transport) takeIdle(host string) *conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	cs := t.idle[host]
	if len(cs) == 0 {
		return nil
	}
	c := cs[len(cs)-1]
	t.idle[host] = cs[:len(cs)-1]
	if t.idleFor > 0 && time.Since(c.idleFrom) >= t.idleFor {
		// The older ones have waited longer still.
		for _, old := range cs {
			old.Close()
		}
		t.idle[host] = nil
		return nil
	}
	return c
}

// put keeps c for the next request to its host, or closes it.
func (t *Transport) put(c *conn) {
	c.idleFrom = time.Now()
	t.mu.Lock()
	cs := t.idle[c.host]
	if len(cs) < t.maxIdle {
		t.idle[c.host] = append(cs, c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// exchange writes req on c and reads the head of its answer; the body is read by the caller, and c goes
// back to the pool once it is read whole.
func (t *Transport) exchange(c *conn, req *http.Request) (*http.Response, error) {
	// The end of the request's context (a client gone, a timeout) ends the wait for the server.
	stop := context.AfterFunc(req.Context(), func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	res, err := c.roundTrip(req)
	if err != nil {
		stop()
		c.Close()
		return nil, err
	}
	b := &body{ReadCloser: res.Body, c: c, t: t, stop: stop, reuse: !res.Close && !req.Close}
	if res.Body == http.NoBody {
		b.release(true)
		return res, nil
	}
	res.Body = b
	return res, nil
}

func (c *conn) roundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Write(c.bw); err != nil {
		return nil, err
	}
	if err := c.bw.Flush(); err != nil {
		return nil, err
	}
	for {
		res, err := http.ReadResponse(c.br, req)
		if err != nil {
			return nil, err
		}
		// An interim answer (103 Early Hints) is not the answer.
		if res.StatusCode < 200 && res.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		return res, nil
	}
}

// body hands the connection back once the answer is read to its end; a body closed before its end closes
// the connection instead of draining it (the reader gave up: the rest may never end).
type body struct {
	io.ReadCloser
	c     *conn
	t     *Transport
	stop  func() bool
	reuse bool
	done  bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.release(true)
	} else if err != nil {
		b.release(false)
	}
	return n, err
}

func (b *body) Close() error {
	if !b.done {
		b.release(false)
	}
	return nil
}

// release returns the connection to the pool when the answer was read whole and the context never ended,
// and closes it otherwise.
func (b *body) release(whole bool) {
	b.done = true
	if b.stop() && whole && b.reuse {
		b.t.put(b.c)
		return
	}
	b.c.Close()
}
