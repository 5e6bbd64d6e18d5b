package configapp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// errorBody is Spring Boot 1.x's error JSON (timestamp in epoch ms).
type errorBody struct {
	Timestamp int64  `json:"timestamp"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Message   string `json:"message"`
	Path      string `json:"path"`
}

func writeError(w http.ResponseWriter, r *http.Request, status int, message string) {
	writeJSON(w, status, errorBody{
		Timestamp: time.Now().UnixMilli(),
		Status:    status,
		Error:     http.StatusText(status),
		Message:   message,
		Path:      r.URL.Path,
	})
}

// writeJSON writes v without HTML escaping, as Jackson does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := appendJSON(&buf, v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"status":500,"error":"Internal Server Error","message":"cannot encode the response"}`)
	}
	buf.WriteByte('\n')
	httpx.WriteBody(w, status, "application/json", buf.Bytes())
}

func appendJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode adds a newline
	return nil
}
