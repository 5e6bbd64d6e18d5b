package core

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Proxy is a forward proxy on the loopback interface that lets through only the origins of the run's policy:
// a browser the harness starts (Chromium) sends everything through it, plain HTTP, the CONNECT tunnels of
// HTTPS and every WebSocket, so a page of the target cannot make it contact anything else, the metadata
// service of a cloud machine included. What it refuses it keeps, for the message of the step that finds the
// browser on an error page.
type Proxy struct {
	URL string

	origins   *Origins
	transport http.RoundTripper
	srv       *http.Server
	ln        net.Listener

	mu      sync.Mutex
	blocked []string
	conns   map[net.Conn]bool // the tunnels open, closed with the proxy
}

// maxProxied bounds one answer the proxy passes on: a page is not 16 MiB.
const maxProxied = 16 << 20

// StartProxy starts a proxy for the policy, on 127.0.0.1.
func StartProxy(o *Origins) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), origins: o, ln: ln, conns: map[net.Conn]bool{},
		transport: NewTransport(o, func(t *http.Transport) { t.Proxy = nil })}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: DialTimeout}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Blocked are the requests the proxy refused, each once, in order: an address without a query (a tunnel is
// host:port).
func (p *Proxy) Blocked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.blocked)
}

// Close stops the proxy and every tunnel through it.
func (p *Proxy) Close() {
	_ = p.srv.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *Proxy) block(w http.ResponseWriter, what string) {
	p.mu.Lock()
	if !slices.Contains(p.blocked, what) {
		p.blocked = append(p.blocked, what)
	}
	p.mu.Unlock()
	http.Error(w, what+": not an origin the target file declares", http.StatusForbidden)
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || !p.origins.Allows(r.URL) {
		p.block(w, Redacted(r.URL))
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	removeHopHeaders(out.Header)
	if isUpgrade(r) {
		out.Header.Set("Connection", "Upgrade")
		out.Header.Set("Upgrade", r.Header.Get("Upgrade"))
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		p.switchProtocols(w, resp)
		return
	}
	removeHopHeaders(resp.Header)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, maxProxied))
}

// tunnel opens a CONNECT tunnel to an address of an allowed origin (an https origin, or a WebSocket's).
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	if !p.origins.allowsAddr(r.Host) {
		p.block(w, r.Host)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), DialTimeout)
	defer cancel()
	upstream, err := (&net.Dialer{}).DialContext(ctx, "tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	client, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	_, _ = client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	p.pipe(client, upstream)
}

// switchProtocols joins the browser to the upstream of an upgraded connection (a WebSocket over plain HTTP).
func (p *Proxy) switchProtocols(w http.ResponseWriter, resp *http.Response) {
	upstream, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		http.Error(w, "the upstream cannot switch protocols", http.StatusBadGateway)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	client, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	p.pipe(client, upstream)
}

// pipe copies both ways until either side ends or the proxy closes.
func (p *Proxy) pipe(a net.Conn, b io.ReadWriteCloser) {
	p.mu.Lock()
	p.conns[a] = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, a)
		p.mu.Unlock()
	}()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, a); done <- struct{}{} }()
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	<-done
	_ = a.Close()
	_ = b.Close()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}

func isUpgrade(r *http.Request) bool { return r.Header.Get("Upgrade") != "" }

// hopHeaders are the headers of one connection, which a proxy does not pass on (RFC 9110 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, name := range hopHeaders {
		h.Del(name)
	}
}
