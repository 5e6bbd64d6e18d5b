package tokens

import (
	"net/http"
	"slices"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

// RequireScope checks the bearer token of a request for scope; it answers
// 401 (no or bad token) or 403 (insufficient_scope) itself, with the RFC
// 6750 challenge, and returns the token's claims when the request may go on.
func (t *Strategy) RequireScope(w http.ResponseWriter, r *http.Request, scope string) (*Claims, bool) {
	raw, ok := httpio.BearerToken(r)
	if !ok {
		httpio.BearerChallenge(w, http.StatusUnauthorized, "unauthorized", "Full authentication is required to access this resource", "")
		return nil, false
	}
	claims, err := t.Inspect(raw)
	if err != nil {
		httpio.BearerChallenge(w, http.StatusUnauthorized, "invalid_token", err.Error(), "")
		return nil, false
	}
	if !slices.Contains(claims.Scope, scope) {
		httpio.BearerChallenge(w, http.StatusForbidden, "insufficient_scope", "Insufficient scope for this resource", scope)
		return nil, false
	}
	return claims, true
}

// Authorized is RequireScope for a handler that needs only the verdict.
func (t *Strategy) Authorized(w http.ResponseWriter, r *http.Request, scope string) bool {
	_, ok := t.RequireScope(w, r, scope)
	return ok
}
