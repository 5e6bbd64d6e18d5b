// Package httpx holds the HTTP plumbing every reference service shares: the request log with its status
// recorder, and writing a body or a JSON value. What a service answers (its content types, its error shapes,
// its cache headers) stays in the service: each imitates a different real system.
package httpx

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// Logged serves a request with next and logs it at debug level with its status and duration. Below debug
// level it costs nothing: the recorder and the log arguments allocate on every request.
func Logged(log *slog.Logger, w http.ResponseWriter, r *http.Request, next func(http.ResponseWriter, *http.Request)) {
	if !log.Enabled(r.Context(), slog.LevelDebug) {
		next(w, r)
		return
	}
	start := time.Now()
	rec := &StatusRecorder{ResponseWriter: w, Status: http.StatusOK}
	next(rec, r)
	log.Debug("request", "method", r.Method, "path", r.URL.EscapedPath(), "status", rec.Status, "duration", time.Since(start))
}

// StatusRecorder remembers the status a handler answered, for the request log.
type StatusRecorder struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records the status and passes it on.
func (r *StatusRecorder) WriteHeader(code int) {
	r.Status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (r *StatusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// WriteBody answers status with the body, its type and its length.
func WriteBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// EncodeJSON encodes v as one line without HTML escaping, as the Java servers the services imitate (Jackson)
// write it: "<" stays "<".
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadAll reads r to its end, or until it holds limit bytes, into one
// buffer of the size announced (a Content-Length; one byte more, to see the
// end): a body of known length costs one allocation, where io.ReadAll grows
// from 512 bytes. An unknown size (< 0), or one of limit or more, starts at
// 512 bytes.
func ReadAll(r io.Reader, size int64, limit int) ([]byte, error) {
	if size < 0 || size >= int64(limit) {
		size = 512
	}
	b := make([]byte, 0, size+1)
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}
