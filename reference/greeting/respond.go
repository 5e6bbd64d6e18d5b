package greeting

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// writeJSON writes v without HTML escaping.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only the page types are written: they always encode
	writeBody(w, status, "application/json", buf.Bytes())
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

// wantsJSON reports whether the client prefers application/json to HTML:
// JSON must be named explicitly, with a quality at least that of text/html
// (a browser's or curl's "*/*" gets the page).
func wantsJSON(r *http.Request) bool {
	var qJSON, qHTML float64
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := quality(params["q"])
		switch mediaType {
		case "application/json":
			qJSON = max(qJSON, q)
		case "text/html", "text/*":
			qHTML = max(qHTML, q)
		}
	}
	return qJSON > 0 && qJSON >= qHTML
}

func quality(s string) float64 {
	if s == "" {
		return 1
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q < 0 || q > 1 {
		return 0
	}
	return q
}
