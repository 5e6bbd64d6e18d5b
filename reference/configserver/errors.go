package configserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// httpError is an error with the status it answers with.
type httpError struct {
	status  int
	message string
}

func (e *httpError) Error() string { return e.message }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{status: http.StatusNotFound, message: fmt.Sprintf(format, args...)}
}

// noSuchLabelError uses Spring's wording for an unknown label.
type noSuchLabelError struct{ label string }

func (e *noSuchLabelError) Error() string { return "No such label: " + e.label }

// unavailableError means no copy of the repository could be fetched yet.
type unavailableError struct {
	uri string
	err error
}

func (e *unavailableError) Error() string {
	if errors.Is(e.err, transport.ErrRepositoryNotFound) {
		return "No such repository: " + e.uri
	}
	return fmt.Sprintf("Configuration repository %s is unavailable and no copy has been fetched yet: %v", e.uri, e.err)
}

func (e *unavailableError) Unwrap() error { return e.err }

// fileError is a configuration file that cannot be used; it is the
// repository's fault, hence a 500, and the message names the file.
type fileError struct {
	name string
	err  error
}

func (e *fileError) Error() string { return fmt.Sprintf("Cannot load %s: %v", e.name, e.err) }

// statusOf maps an error to the HTTP status it answers with.
func statusOf(err error) int {
	var he *httpError
	var ue *unavailableError
	switch {
	case errors.As(err, &he):
		return he.status
	case errors.As(err, new(*noSuchLabelError)):
		return http.StatusNotFound
	case errors.As(err, &ue) && errors.Is(ue.err, transport.ErrRepositoryNotFound):
		return http.StatusNotFound
	case errors.As(err, &ue), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// errorBody is Spring Boot's error JSON, which Spring clients already parse.
type errorBody struct {
	Timestamp string `json:"timestamp"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Message   string `json:"message"`
	Path      string `json:"path"`
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	switch {
	case status >= 500 && r.Context().Err() != nil:
		// The caller went away (a load generator stopping, a client
		// timing out): nothing failed that an operator must look at.
		s.log.Debug("caller went away", "path", r.URL.EscapedPath(), "status", status, "err", err)
	case status >= 500:
		s.log.Error("request failed", "path", r.URL.EscapedPath(), "status", status, "err", err)
	}
	writeJSON(w, status, errorBody{
		Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Status:    status,
		Error:     http.StatusText(status),
		Message:   err.Error(),
		Path:      r.URL.EscapedPath(),
	})
}
