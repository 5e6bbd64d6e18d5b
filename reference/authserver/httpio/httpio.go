package httpio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// apiError is the JSON error body of UAA and RFC 6749:
// {"error": ..., "error_description": ...}.
type apiError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
	Scope       string `json:"scope,omitempty"` // insufficient_scope: the scope needed
}

// JSONType is the content type of every JSON answer, as UAA writes it.
const JSONType = "application/json;charset=UTF-8"

// MaxBodyBytes bounds a request body: LimitBody answers 413 past it.
const MaxBodyBytes = 64 << 10

// WriteJSON answers v as UAA does: application/json;charset=UTF-8.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	status, body := EncodeJSON(status, v)
	httpx.WriteBody(w, status, JSONType, body)
}

// EncodeJSON is the status and body of an answer of v: a 500 when v cannot
// be encoded (only our own types are written; that is a bug).
func EncodeJSON(status int, v any) (int, []byte) {
	body, err := httpx.EncodeJSON(v)
	if err != nil {
		return http.StatusInternalServerError, []byte(`{"error":"server_error"}` + "\n")
	}
	return status, body
}

// WriteError answers UAA's and RFC 6749's error body.
func WriteError(w http.ResponseWriter, status int, code, description string) {
	WriteJSON(w, status, apiError{Error: code, Description: description})
}

// NoStore marks a response with tokens or token data uncacheable.
func NoStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// LimitBody reads the whole body, up to MaxBodyBytes, before any handler
// runs, and answers 413 for a larger one: fosite and the form parser would
// otherwise report a cut body as malformed (400) and read up to 10 MiB.
// It reports whether the request may go on.
func LimitBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	if r.ContentLength > MaxBodyBytes {
		tooLarge(w)
		return false
	}
	body, err := httpx.ReadAll(r.Body, r.ContentLength, MaxBodyBytes+1) // one byte past the limit tells a larger body
	_ = r.Body.Close()
	switch {
	case err != nil:
		WriteError(w, http.StatusBadRequest, "invalid_request", "The request body could not be read.")
		return false
	case len(body) > MaxBodyBytes:
		tooLarge(w)
		return false
	}
	r.Body = newBufferedBody(body)
	r.ContentLength = int64(len(body))
	return true
}

// bufferedBody is a request body that LimitBody read in full: handlers read
// it as any body, and CheckTokenForm parses its bytes in place.
type bufferedBody struct {
	bytes.Reader
	raw []byte
}

func newBufferedBody(b []byte) *bufferedBody {
	bb := &bufferedBody{raw: b}
	bb.Reset(b)
	return bb
}

func (*bufferedBody) Close() error { return nil }

// unread returns the bytes of the body when nothing of it was read yet.
func (b *bufferedBody) unread() ([]byte, bool) {
	return b.raw, b.Len() == len(b.raw)
}

func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	WriteError(w, http.StatusRequestEntityTooLarge, "invalid_request",
		"The request body is larger than "+strconv.Itoa(MaxBodyBytes)+" bytes.")
}

// DecodeJSON reads one JSON object from the body into v; the error says
// what is wrong in terms the caller can act on.
func DecodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("field %q must be %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
		}
		return errors.New("the body must be a JSON object")
	}
	if dec.More() {
		return errors.New("the body must be one JSON object")
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "struct", "map":
		return "an object"
	}
	return "a " + goKind
}
