package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/routing"
)

// Server settings.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 5 * time.Minute
	drainTimeout      = 30 * time.Second
)

// Listener is one served port.
type Listener struct {
	Port     int    // the port in the manifests
	Protocol string // HTTP or HTTPS
	Addr     string // where it listens, host:port
}

// URL is the listener's base URL.
func (l Listener) URL() string {
	scheme := "http"
	if l.Protocol == "HTTPS" {
		scheme = "https"
	}
	return scheme + "://" + l.Addr
}

// ports runs one HTTP server per served port. A port keeps its socket
// across reloads; whether a new connection speaks TLS is decided when it is
// accepted, from the configuration then in force, so a port can change
// protocol without being closed.
type ports struct {
	g       *Gateway
	mu      sync.Mutex
	running map[int]*portServer // by manifest port
	pending []*portServer       // bound, not serving yet
	errs    chan error
	wg      sync.WaitGroup
}

type portServer struct {
	port int
	ln   net.Listener
	srv  *http.Server
}

// bind opens the ports of t that are not open yet. Nothing is served
// until commit; on failure the ports just opened are closed again.
func (p *ports) bind(t *routing.Table) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tp := range t.Ports() {
		if p.running[tp.Number] != nil {
			continue
		}
		ps, err := p.listen(tp)
		if err != nil {
			p.abort()
			return err
		}
		p.pending = append(p.pending, ps)
	}
	return nil
}

func (p *ports) listen(tp *routing.Port) (*portServer, error) {
	o := &p.g.o
	port := tp.Number + o.PortOffset
	if o.FreePorts {
		port = 0
	}
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("%s: port %d with --port-offset %d is %d, outside 0-65535", tp.Listeners[0], tp.Number, o.PortOffset, port)
	}
	addr := net.JoinHostPort(o.Host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot listen on %s: %w", tp.Listeners[0], addr, err)
	}
	ps := &portServer{port: tp.Number, ln: &tlsSwitch{Listener: ln, tls: func() *tls.Config { return p.g.tlsConfig(tp.Number) }}}
	ps.srv = &http.Server{
		Handler:           p.g.handler(tp.Number),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ConnContext:       connContext,
		// Clients that drop a TLS handshake are not the gateway's problem.
		ErrorLog: slog.NewLogLogger(p.g.log.Handler(), slog.LevelDebug),
	}
	return ps, nil
}

func (p *ports) abort() {
	for _, ps := range p.pending {
		_ = ps.ln.Close()
	}
	p.pending = nil
}

// commit serves the ports bound for t and drains those t no longer has.
// It runs once t is in force, so a new port never serves the old table.
func (p *ports) commit(t *routing.Table) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ps := range p.pending {
		p.running[ps.port] = ps
		p.wg.Go(func() {
			if err := ps.srv.Serve(ps.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				select {
				case p.errs <- fmt.Errorf("port %d: %w", ps.port, err):
				default:
				}
			}
		})
	}
	p.pending = nil
	for n, ps := range p.running {
		if t.Port(n) == nil {
			delete(p.running, n)
			p.g.log.Info("listener removed; draining its requests", "port", n, "addr", ps.ln.Addr().String())
			p.wg.Go(func() { p.drain(ps) })
		}
	}
}

// drain stops a server gracefully: requests in flight finish.
func (p *ports) drain(ps *portServer) {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := ps.srv.Shutdown(ctx); err != nil {
		_ = ps.srv.Close()
	}
}

// shutdown drains every server and waits for them.
func (p *ports) shutdown(ctx context.Context) error {
	p.mu.Lock()
	var errs []error
	for n, ps := range p.running {
		delete(p.running, n)
		if err := ps.srv.Shutdown(ctx); err != nil {
			errs = append(errs, err)
			_ = ps.srv.Close()
		}
	}
	p.abort()
	p.mu.Unlock()
	p.wg.Wait()
	return errors.Join(errs...)
}

// list returns the running ports, in manifest port order.
func (p *ports) list() []Listener {
	p.mu.Lock()
	defer p.mu.Unlock()
	table := p.g.config.Load().table
	var ls []Listener
	for n, ps := range p.running {
		proto := "HTTP"
		if tp := table.Port(n); tp != nil {
			proto = tp.Protocol
		}
		ls = append(ls, Listener{Port: n, Protocol: proto, Addr: ps.ln.Addr().String()})
	}
	slices.SortFunc(ls, func(a, b Listener) int { return a.Port - b.Port })
	return ls
}

// tlsSwitch wraps each accepted connection in TLS when its port is HTTPS
// in the configuration in force. http.Server does the handshake (with its
// timeouts) and offers HTTP/2 over it.
type tlsSwitch struct {
	net.Listener
	tls func() *tls.Config
}

func (l *tlsSwitch) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if cfg := l.tls(); cfg != nil {
		return tls.Server(c, cfg), nil
	}
	return c, nil
}
