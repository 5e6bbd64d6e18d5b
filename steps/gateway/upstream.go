package gateway

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
)

// upstream is the backend the steps put behind the gateway's routes: it answers every request and counts
// them by Host, so a scenario can tell how many requests got past the gateway. The probes the steps send
// while waiting for a manifest to take effect (they carry x-tck-probe) are not counted.
type upstream struct {
	host   string
	port   int
	server *http.Server
	mu     sync.Mutex
	counts map[string]int
}

func startUpstream(host string) (*upstream, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("starting the upstream on %s (services.gateway.harnessHost): %w", host, err)
	}
	u := &upstream{host: host, port: l.Addr().(*net.TCPAddr).Port, counts: map[string]int{}}
	u.server = &http.Server{Handler: u}
	go func() { _ = u.server.Serve(l) }()
	return u, nil
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	probe := r.Header.Get("x-tck-probe") != "" || strings.HasPrefix(r.Header.Get("x-user-id"), "tck-probe-")
	if !probe {
		u.mu.Lock()
		u.counts[hostOnly(r.Host)]++
		u.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintln(w, "from the fortune-tck upstream")
}

func (u *upstream) count(host string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.counts[host]
}

func (u *upstream) close() { _ = u.server.Close() }

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
