package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// servePprof serves Go's profiles (net/http/pprof) on addr, apart from the
// service's own port, so that a service under load can be profiled as it
// runs (`go tool pprof http://ADDR/debug/pprof/profile?seconds=5`). It
// returns the address bound (addr may have port 0) and a stop func.
func servePprof(addr string, log *slog.Logger) (bound string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, usageError{fmt.Errorf("--pprof cannot listen on %s: %w", addr, err)}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("pprof server failed", "err", err)
		}
	}()
	bound = ln.Addr().String()
	log.Info("profiles", "url", "http://"+bound+"/debug/pprof/")
	return bound, func() { _ = srv.Close() }, nil
}
