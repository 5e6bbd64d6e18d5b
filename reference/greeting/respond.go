package greeting

import (
	"net/http"
	"strconv"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// writeJSON writes v without HTML escaping.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := httpx.EncodeJSON(v) // only the page types are written: they always encode
	writeBody(w, status, "application/json", body)
}

// writeBody writes a page. Pages are personal (a user's name and fortune)
// and change on every load: never cached, never framed.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Accept, Cookie")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
