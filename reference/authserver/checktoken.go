package authserver

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// checkToken is UAA's /check_token: a resource server (a client with the
// authz.resource authority, HTTP Basic) asks whether an access token is
// valid and gets its claims. Every invalid token is a 400 invalid_token with
// UAA's message; refresh tokens are not access tokens and are not
// recognised.
func (s *Server) checkToken(w http.ResponseWriter, r *http.Request) {
	httpio.NoStore(w)
	if !s.resourceClient(w, r) {
		return
	}
	raw, scopes := httpio.CheckTokenForm(r)
	if raw == "" {
		httpio.WriteError(w, http.StatusBadRequest, "invalid_token", "Token parameter must be set")
		return
	}
	v, err := s.tokens.InspectVerified(raw)
	if err != nil {
		httpio.WriteError(w, http.StatusBadRequest, "invalid_token", err.Error())
		return
	}
	if missing := missingScopes(v.Claims.Scope, scopes); len(missing) > 0 {
		httpio.WriteError(w, http.StatusBadRequest, "invalid_scope", "Some requested scopes are missing: "+strings.Join(missing, ","))
		return
	}
	httpx.WriteBody(w, v.Status, httpio.JSONType, v.Answer)
}

// resourceClient authenticates the caller of check_token: 401 without
// (valid) HTTP Basic credentials, 403 without the authz.resource authority.
func (s *Server) resourceClient(w http.ResponseWriter, r *http.Request) bool {
	id, secret, ok := r.BasicAuth()
	if !ok {
		basicChallenge(w, "Full authentication is required to access this resource")
		return false
	}
	c, ok := s.authenticateClient(r.Context(), id, secret)
	if !ok {
		basicChallenge(w, "Bad credentials")
		return false
	}
	if !c.HasAuthority(resourceScope) {
		httpio.WriteError(w, http.StatusForbidden, "access_denied", "Access is denied: the client needs the authority "+resourceScope)
		return false
	}
	return true
}

func basicChallenge(w http.ResponseWriter, description string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="UAA/client", error="unauthorized", error_description="`+description+`"`)
	httpio.WriteError(w, http.StatusUnauthorized, "unauthorized", description)
}

// authenticateClient checks HTTP Basic client credentials. They are tried as
// sent and, when different, form-decoded: Spring's resource servers send
// them raw, uaac and RFC 6749 clients form-encode them. The client is the
// store's shared decoding: read it, never change it.
func (s *Server) authenticateClient(ctx context.Context, id, secret string) (*store.Client, bool) {
	try := func(id, secret string) (*store.Client, bool) {
		c, ok := s.store.SharedClient(id)
		if !ok || c.Public() || s.hasher.Compare(ctx, c.SecretHash, []byte(secret)) != nil {
			return nil, false
		}
		return c, true
	}
	if c, ok := try(id, secret); ok {
		return c, true
	}
	did, err1 := url.QueryUnescape(id)
	dsecret, err2 := url.QueryUnescape(secret)
	if err1 != nil || err2 != nil || (did == id && dsecret == secret) {
		return nil, false
	}
	return try(did, dsecret)
}

// missingScopes returns the scopes of the comma-separated list that the
// token does not have.
func missingScopes(have []string, list string) []string {
	var missing []string
	for sc := range strings.SplitSeq(list, ",") {
		if sc = strings.TrimSpace(sc); sc != "" && !slices.Contains(have, sc) {
			missing = append(missing, sc)
		}
	}
	return missing
}
