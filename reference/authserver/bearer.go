package authserver

import (
	"net/http"
	"slices"
	"strings"
)

// bearerToken returns the access token of a request: the Authorization
// header, or (RFC 6750 section 2.2) the access_token field of a form POST.
func bearerToken(r *http.Request) (string, bool) {
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

// requireScope checks the bearer token of a request for scope; it answers
// 401 (no or bad token) or 403 (insufficient_scope) itself, with the RFC
// 6750 challenge, and returns the token's claims when the request may go on.
func (s *Server) requireScope(w http.ResponseWriter, r *http.Request, scope string) (*accessClaims, bool) {
	raw, ok := bearerToken(r)
	if !ok {
		bearerChallenge(w, http.StatusUnauthorized, "unauthorized", "Full authentication is required to access this resource", "")
		return nil, false
	}
	claims, err := s.tokens.inspect(raw)
	if err != nil {
		bearerChallenge(w, http.StatusUnauthorized, "invalid_token", err.Error(), "")
		return nil, false
	}
	if !slices.Contains(claims.Scope, scope) {
		bearerChallenge(w, http.StatusForbidden, "insufficient_scope", "Insufficient scope for this resource", scope)
		return nil, false
	}
	return claims, true
}

// authorized is requireScope for a handler that needs only the verdict.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request, scope string) bool {
	_, ok := s.requireScope(w, r, scope)
	return ok
}

// bearerChallenge writes an RFC 6750 error: the WWW-Authenticate challenge
// and the same error as JSON.
func bearerChallenge(w http.ResponseWriter, status int, code, description, scope string) {
	v := `Bearer realm="oauth"`
	if code != "unauthorized" { // RFC 6750 3.1: no error code when no token was sent
		v += `, error="` + code + `", error_description="` + description + `"`
	}
	if scope != "" {
		v += `, scope="` + scope + `"`
	}
	w.Header().Set("WWW-Authenticate", v)
	writeJSON(w, status, apiError{Error: code, Description: description, Scope: scope})
}
