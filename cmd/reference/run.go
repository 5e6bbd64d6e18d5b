package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
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
		addr := net.JoinHostPort(host, strconv.Itoa(port(s)))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll(bs)
			return nil, fmt.Errorf("%s cannot listen on %s: %w", s.name, addr, err)
		}
		bs = append(bs, &binding{svc: s, ln: ln, url: displayURL(host, ln.Addr())})
	}
	return bs, nil
}

// displayURL is the URL a person types: loopback and wildcard hosts are
// shown as localhost, as in the spec.
func displayURL(host string, addr net.Addr) string {
	_, port, _ := net.SplitHostPort(addr.String())
	switch host {
	case "", "0.0.0.0", "::", "127.0.0.1", "::1", "localhost":
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// closeAll releases sockets and built instances (after a failed start).
func closeAll(bs []*binding) {
	for _, b := range bs {
		b.ln.Close()
		if b.inst != nil && b.inst.close != nil {
			_ = b.inst.close()
		}
	}
}

// serveAll serves every binding until ctx ends or one server fails, then
// shuts all down gracefully.
func (c *cli) serveAll(ctx context.Context, log *slog.Logger, bs []*binding) int {
	errs := make(chan error, len(bs))
	servers := make([]*http.Server, len(bs))
	for i, b := range bs {
		servers[i] = &http.Server{
			Handler:           b.inst.handler,
			ReadHeaderTimeout: readHeaderTimeout,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
		go func() { errs <- servers[i].Serve(b.ln) }()
		log.Info("listening", "service", b.svc.name, "url", b.url)
		if c.listening != nil {
			c.listening(b.svc.name, b.ln.Addr().String())
		}
	}
	code := exitOK
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-errs:
		log.Error("server failed", "err", err)
		code = exitError
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("shutdown", "err", err)
		}
	}
	closeAll(bs)
	return code
}
