package rabbittest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the broker from a loopback port of its own. Down closes every connection
// and refuses new ones, as a broker that stops does; Up accepts them again on the same port.
type Proxy struct {
	tb     testing.TB
	target string // the broker's host:port
	addr   string
	mu     sync.Mutex
	ln     net.Listener // nil while down
	conns  map[net.Conn]struct{}
}

// NewProxy starts a proxy to the broker of rawURL (an amqp:// URL); URL gives the same URL through it. The
// proxy stops when the test ends.
func NewProxy(tb testing.TB, rawURL string) *Proxy {
	tb.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{tb: tb, target: u.Host, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	tb.Cleanup(p.Down)
	return p
}

// URL is rawURL with the proxy's address in place of the broker's.
func (p *Proxy) URL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		p.tb.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

// Down closes the listener and every connection through the proxy.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Up listens again on the proxy's port.
func (p *Proxy) Up() {
	p.tb.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.tb.Fatalf("the proxy cannot listen on %s again: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

// forward joins a client connection to a new one to the broker, both tracked so that Down can close them.
func (p *Proxy) forward(client net.Conn) {
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, upstream) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) { _, _ = io.Copy(dst, src); done <- struct{}{} }
	go pipe(upstream, client)
	go pipe(client, upstream)
	<-done
	_ = client.Close()
	_ = upstream.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, upstream)
	p.mu.Unlock()
}

// track records the pair, or closes it when the proxy went down meanwhile.
func (p *Proxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		_ = a.Close()
		_ = b.Close()
		return false
	}
	p.conns[a], p.conns[b] = struct{}{}, struct{}{}
	return true
}
