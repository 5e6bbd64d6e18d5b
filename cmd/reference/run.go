package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

const (
	readHeaderTimeout = 10 * time.Second
	shutdownTimeout   = 10 * time.Second
)

// binding is a service with its socket and, once built, its instance.
type binding struct {
	svc  *service
	ln   net.Listener
	url  string
	inst *instance
}

// listen binds every service before any is built, so services learn each
// other's real URLs (port 0 included) and a busy port fails fast.
func listen(host string, svcs []*service, port func(*service) int) ([]*binding, error) {
	var bs []*binding
	for _, s := range svcs {
		if s.ownSockets {
			bs = append(bs, &binding{svc: s, url: displayHostPort(host, strconv.Itoa(port(s)))})
			continue
		}
		addr := net.JoinHostPort(host, strconv.Itoa(port(s)))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll(bs)
			return nil, &listenError{service: s.name, addr: addr, err: err}
		}
		bs = append(bs, &binding{svc: s, ln: ln, url: displayURL(host, ln.Addr())})
	}
	return bs, nil
}

// listenError is a service whose port could not be bound.
type listenError struct {
	service, addr string
	err           error
}

func (e *listenError) Error() string {
	return fmt.Sprintf("%s cannot listen on %s: %v", e.service, e.addr, e.err)
}

func (e *listenError) Unwrap() error { return e.err }

// portTaken says what to do when a port is taken, most often by another stack of the reference still running;
// move is how to give the service another port.
func portTaken(err error, move string) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	return fmt.Errorf("%w\nAnother program listens there, perhaps another stack of the reference (make demo, reference up): "+
		"stop it, or %s (0: a free port).", err, move)
}

// displayURL is the URL a person types: loopback and wildcard hosts are
// shown as localhost, as in the spec.
func displayURL(host string, addr net.Addr) string {
	_, port, _ := net.SplitHostPort(addr.String())
	return displayHostPort(host, port)
}

// displayHostPort is displayURL for a port number.
func displayHostPort(host, port string) string {
	switch host {
	case "", "0.0.0.0", "::", "127.0.0.1", "::1", "localhost":
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// closeAll releases sockets and built instances (after a failed start).
func closeAll(bs []*binding) {
	for _, b := range bs {
		if b.ln != nil {
			b.ln.Close()
		}
		if b.inst != nil && b.inst.close != nil {
			_ = b.inst.close()
		}
	}
}

// runner serves bindings as they are built, and stops them all together.
type runner struct {
	c   *cli
	log *slog.Logger
	all []*binding // every socket, served or not, released by stop
	// named is set when log names the service already (reference serve): its lines do not name it twice.
	named   bool
	errs    chan error
	servers []*http.Server
	started []*binding
	stopped chan struct{}
}

// logOf is the log of one service's lines: the runner's, naming the service unless it names it already.
func (r *runner) logOf(b *binding) *slog.Logger {
	if r.named {
		return r.log
	}
	return r.log.With("service", b.svc.name)
}

func (c *cli) newRunner(log *slog.Logger, all []*binding) *runner {
	return &runner{c: c, log: log, all: all, errs: make(chan error, len(all)), stopped: make(chan struct{})}
}

// start serves b, whose instance is built. Services are started one by one,
// so a service can reach the ones built before it while it starts (the
// configuration app fetches from the configuration server).
func (r *runner) start(b *binding) {
	if b.ln == nil {
		r.startOwn(b)
		return
	}
	srv := &http.Server{
		Handler:           b.inst.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(r.log.Handler(), slog.LevelWarn),
	}
	r.servers = append(r.servers, srv)
	r.started = append(r.started, b)
	go func() { r.errs <- srv.Serve(b.ln) }()
	r.logOf(b).Info("listening", "addr", b.ln.Addr().String(), "url", b.url)
}

// readyURL is the URL the service answers at, with the port it bound
// (--port 0 included): its bound address, or loopback for a wildcard one.
// A service that binds its own sockets (the gateway) gives its own URL.
func (b *binding) readyURL() string {
	if b.ln == nil {
		return b.url
	}
	addr, ok := b.ln.Addr().(*net.TCPAddr)
	if !ok {
		return "http://" + b.ln.Addr().String()
	}
	ip := addr.IP
	if ip.IsUnspecified() { // Go's wildcard sockets take IPv4 too
		ip = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(addr.Port))
}

// startOwn follows a service that serves its own sockets since it was
// built: its failure stops the stack, as a server's does.
func (r *runner) startOwn(b *binding) {
	r.started = append(r.started, b)
	if b.inst.url != "" {
		b.url = b.inst.url
	}
	if b.inst.failed != nil {
		go func() {
			select {
			case err := <-b.inst.failed:
				r.errs <- err
			case <-r.stopped:
			}
		}()
	}
	r.logOf(b).Info("listening", "addrs", b.inst.addrs)
}

// announce tells the test hook every address, once everything is up.
func (r *runner) announce() {
	if r.c.listening == nil {
		return
	}
	for _, b := range r.started {
		if b.ln == nil {
			for _, a := range b.inst.addrs {
				r.c.listening(b.svc.name, a)
			}
			continue
		}
		r.c.listening(b.svc.name, b.ln.Addr().String())
	}
}

// wait serves until ctx ends or one server fails, then stops everything.
func (r *runner) wait(ctx context.Context) int {
	code := exitOK
	select {
	case <-ctx.Done():
		r.log.Info("shutting down")
	case err := <-r.errs:
		r.log.Error("server failed", "err", err)
		code = exitError
	}
	r.stop()
	return code
}

// stop shuts the servers down gracefully, then releases every socket and
// built instance.
func (r *runner) stop() {
	close(r.stopped)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for _, srv := range r.servers {
		if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.log.Warn("shutdown", "err", err)
		}
	}
	closeAll(r.all)
}
