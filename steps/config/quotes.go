package config

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// quoteSource is a quote service the steps run for the configuration application to call: scenarios register
// a quote under a path of their own and point quoteServiceURL at it. It answers in the record format of Spring's
// "quoters" service, which the original demo's quote page reads: {"type":"success","value":{"id":1,"quote":"..."}}.
type quoteSource struct {
	base   string
	server *http.Server
	mu     sync.Mutex
	quotes map[string]string
}

func startQuoteSource(host string) (*quoteSource, error) {
	// The application reaches the quote source at host, so it listens there: an address of this machine.
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("starting the quote source on %s (services.configApp.harnessHost): %w", host, err)
	}
	q := &quoteSource{quotes: map[string]string{}}
	q.base = "http://" + l.Addr().String()
	q.server = &http.Server{Handler: q}
	go func() { _ = q.server.Serve(l) }()
	return q, nil
}

func (q *quoteSource) close() { _ = q.server.Close() }

// set registers the quote served at path.
func (q *quoteSource) set(path, quote string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.quotes[path] = quote
}

func (q *quoteSource) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q.mu.Lock()
	quote, ok := q.quotes[r.URL.Path]
	q.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"type": "error", "value": "no quote at " + r.URL.Path})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "success", "value": map[string]any{"id": 1, "quote": quote}})
}
