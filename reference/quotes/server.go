package quotes

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// Server serves the quotes; it is an http.Handler.
type Server struct {
	log *slog.Logger
}

// New returns the quote source; log receives a debug line per request and
// may be nil.
func New(log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{log: log}
}

// ServeHTTP routes by hand: there are few paths, and every error must be JSON.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Debug("request", "method", r.Method, "path", r.URL.Path)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not supported; use GET")
		return
	}
	switch path := r.URL.Path; path {
	case "/", "/quotes", "/api/random":
		writeJSON(w, http.StatusOK, record(random()))
	case "/api":
		writeJSON(w, http.StatusOK, records(All()))
	case "/health":
		writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
	default:
		id, ok := strings.CutPrefix(path, "/api/")
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no route for %q", path))
			return
		}
		s.serveOne(w, id)
	}
}

func (s *Server) serveOne(w http.ResponseWriter, raw string) {
	id, err := strconv.Atoi(raw)
	if err != nil || id < 1 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid quote id %q: want a positive number", raw))
		return
	}
	q, ok := byID(id)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no quote with id %d", id))
		return
	}
	writeJSON(w, http.StatusOK, record(q))
}

func random() Quote {
	q, _ := byID(1 + rand.IntN(len(collection)))
	return q
}

func record(q Quote) Record { return Record{Type: "success", Value: q} }

func records(qs []Quote) []Record {
	rs := make([]Record, len(qs))
	for i, q := range qs {
		rs[i] = record(q)
	}
	return rs
}

type errorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorBody{Type: "error", Message: message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := httpx.EncodeJSON(v) // the values written here always encode
	httpx.WriteBody(w, status, "application/json", body)
}
