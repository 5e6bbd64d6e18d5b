package gateway

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

// upstreamTransport sends a request without a body (GET, HEAD, OPTIONS)
// over its own pool of HTTP/1.1 connections, written and read in the
// goroutine of the request; every other request (a body, an upgrade) goes
// through http.Transport. A profile under load showed why: http.Transport
// hands each request to a write goroutine and its answer back from a read
// goroutine, and those channel hand-offs and wake-ups cost the gateway as
// much as the proxying itself. Envoy Gateway too speaks HTTP/1.1 to
// backends by default.
type upstreamTransport struct {
	fallback *http.Transport
	dialer   net.Dialer
	mu       sync.Mutex
	idle     map[string][]*upstreamConn // by host:port, most recently used last
}

// Bounds of the pool, as the fallback's.
const (
	maxIdlePerHost  = 256
	idleConnTimeout = time.Minute
)

func newUpstreamTransport() *upstreamTransport {
	return &upstreamTransport{
		fallback: newTransport(),
		dialer:   net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		idle:     make(map[string][]*upstreamConn),
	}
}

// upstreamConn is one connection to a backend.
type upstreamConn struct {
	net.Conn
	host     string
	br       *bufio.Reader
	bw       *bufio.Writer
	idleFrom time.Time
}

// RoundTrip implements http.RoundTripper.
func (t *upstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !plainRequest(req) {
		return t.fallback.RoundTrip(req)
	}
	for retried := false; ; retried = true {
		c, reused, err := t.get(req.Context(), req.URL.Host)
		if err != nil {
			return nil, err
		}
		res, err := t.exchange(c, req)
		if err == nil {
			return res, nil
		}
		// A kept-alive connection the backend closed while idle fails at
		// once: the request is idempotent, so it goes once more on a new one.
		if !reused || retried || req.Context().Err() != nil {
			return nil, err
		}
	}
}

// CloseIdleConnections closes the connections of both pools.
func (t *upstreamTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*upstreamConn)
	t.mu.Unlock()
	for _, cs := range idle {
		for _, c := range cs {
			c.Close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// plainRequest is a request this transport sends itself: idempotent, over
// plain HTTP, without a body to stream or a protocol to switch to.
func plainRequest(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return false
	}
	return req.URL.Scheme == "http" && (req.Body == nil || req.Body == http.NoBody) &&
		req.Header.Get("Upgrade") == ""
}

// get takes an idle connection to host, or dials one.
func (t *upstreamTransport) get(ctx context.Context, host string) (c *upstreamConn, reused bool, err error) {
	if c = t.takeIdle(host); c != nil {
		reused = true
	} else {
		nc, err := t.dialer.DialContext(ctx, "tcp", host)
		if err != nil {
			return nil, false, err
		}
		c = &upstreamConn{Conn: nc, host: host, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc)}
	}
	if tr := httptrace.ContextClientTrace(ctx); tr != nil && tr.GotConn != nil {
		tr.GotConn(httptrace.GotConnInfo{Conn: c.Conn, Reused: reused})
	}
	return c, reused, nil
}

func (t *upstreamTransport) takeIdle(host string) *upstreamConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	cs := t.idle[host]
	for len(cs) > 0 {
		c := cs[len(cs)-1]
		cs = cs[:len(cs)-1]
		if time.Since(c.idleFrom) < idleConnTimeout {
			t.idle[host] = cs
			return c
		}
		c.Close() // the older ones have waited longer still
		for _, old := range cs {
			old.Close()
		}
		cs = nil
	}
	t.idle[host] = cs
	return nil
}

// put keeps c for the next request to its host, or closes it.
func (t *upstreamTransport) put(c *upstreamConn) {
	c.idleFrom = time.Now()
	t.mu.Lock()
	cs := t.idle[c.host]
	if len(cs) < maxIdlePerHost {
		t.idle[c.host] = append(cs, c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// exchange writes req on c and reads the head of its answer; the body is
// read by the caller, and c goes back to the pool once it is read whole.
func (t *upstreamTransport) exchange(c *upstreamConn, req *http.Request) (*http.Response, error) {
	// The client that goes away ends the wait for the backend.
	stop := context.AfterFunc(req.Context(), func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	res, err := c.roundTrip(req)
	if err != nil {
		stop()
		c.Close()
		return nil, err
	}
	b := &upstreamBody{ReadCloser: res.Body, c: c, t: t, stop: stop, reuse: !res.Close && !req.Close}
	if res.Body == http.NoBody {
		b.release(true)
		return res, nil
	}
	res.Body = b
	return res, nil
}

func (c *upstreamConn) roundTrip(req *http.Request) (*http.Response, error) {
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

// upstreamBody hands the connection back once the body is read to its end;
// a body closed before its end closes the connection instead of draining
// it (the client went away: the rest may never end).
type upstreamBody struct {
	io.ReadCloser
	c     *upstreamConn
	t     *upstreamTransport
	stop  func() bool
	reuse bool
	done  bool
}

func (b *upstreamBody) Read(p []byte) (int, error) {
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

func (b *upstreamBody) Close() error {
	if !b.done {
		b.release(false)
	}
	return nil
}

// release returns the connection to the pool when the answer was read
// whole and the deadline was never set, and closes it otherwise.
func (b *upstreamBody) release(whole bool) {
	b.done = true
	if b.stop() && whole && b.reuse {
		b.t.put(b.c)
		return
	}
	b.c.Close()
}
