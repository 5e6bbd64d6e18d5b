package httpio

import (
	"net/http"
	"strings"
)

// BearerToken returns the access token of a request: the Authorization
// header, or (RFC 6750 section 2.2) the access_token field of a form POST.
func BearerToken(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return "", false
		}
		return strings.TrimSpace(token), true
	}
	if r.Method == http.MethodPost {
		if t := r.PostFormValue("access_token"); t != "" {
			return t, true
		}
	}
	return "", false
}

// BearerChallenge writes an RFC 6750 error: the WWW-Authenticate challenge
// and the same error as JSON.
func BearerChallenge(w http.ResponseWriter, status int, code, description, scope string) {
	v := `Bearer realm="oauth"`
	if code != "unauthorized" { // RFC 6750 3.1: no error code when no token was sent
		v += `, error="` + code + `", error_description="` + description + `"`
	}
	if scope != "" {
		v += `, scope="` + scope + `"`
	}
	w.Header().Set("WWW-Authenticate", v)
	WriteJSON(w, status, apiError{Error: code, Description: description, Scope: scope})
}
