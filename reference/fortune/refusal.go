package fortune

import (
	"net/http"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// refusal is an RFC 6750 error answer: the token is missing, malformed,
// invalid, or lacks the scope. It is the caller's doing, so it is answered,
// not logged.
type refusal struct {
	status      int
	code        string // "" when no token was sent: the challenge has no error
	description string
	scope       string // insufficient_scope: the scope needed
}

func (r *refusal) Error() string { return r.code + ": " + r.description }

// errNoToken is a request without a Bearer Authorization header.
var errNoToken = &refusal{status: http.StatusUnauthorized, description: "Full authentication is required to access this resource"}

// errInsufficientScope is a valid token without fortunes.read.
var errInsufficientScope = &refusal{
	status: http.StatusForbidden, code: "insufficient_scope",
	description: "Insufficient scope for this resource", scope: RequiredScope,
}

func invalidToken(description string) *refusal {
	return &refusal{status: http.StatusUnauthorized, code: "invalid_token", description: description}
}

func invalidRequest(description string) *refusal {
	return &refusal{status: http.StatusBadRequest, code: "invalid_request", description: description}
}

// unavailableError is a token that could not be checked: the authorization
// server is unreachable, failing or refuses the fortune client. It is a
// 503, and logged.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return "cannot validate the token: " + e.err.Error() }
func (e *unavailableError) Unwrap() error { return e.err }

// errorBody is the JSON of every error answer, as UAA's resource servers
// write it.
type errorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
	Scope       string `json:"scope,omitempty"`
}

// writeRefusal answers with the Bearer challenge of r and its JSON.
func writeRefusal(w http.ResponseWriter, r *refusal) {
	w.Header().Set("WWW-Authenticate", challenge(r))
	code := r.code
	if code == "" {
		code = "unauthorized"
	}
	writeJSON(w, r.status, errorBody{Error: code, Description: r.description, Scope: r.scope})
}

// challenge is the WWW-Authenticate value of r (RFC 6750 section 3).
func challenge(r *refusal) string {
	var b strings.Builder
	b.WriteString(`Bearer realm="` + Realm + `"`)
	if r.code != "" {
		b.WriteString(`, error="` + r.code + `", error_description="` + quotable(r.description) + `"`)
	}
	if r.scope != "" {
		b.WriteString(`, scope="` + r.scope + `"`)
	}
	return b.String()
}

// maxDescription bounds an error description taken from the authorization
// server.
const maxDescription = 200

// quotable keeps the characters RFC 6750 allows in error_description
// (printable ASCII but '"' and '\'), so that a description that came from
// elsewhere cannot break the header.
func quotable(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' && b.Len() < maxDescription {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := httpx.EncodeJSON(v) // only errorBody is written: it always encodes
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteBody(w, status, "application/json;charset=UTF-8", body)
}
