package authserver

import (
	"net/http"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// introspect is RFC 7662 token introspection, by fosite: the caller
// authenticates as a client (HTTP Basic) or with a bearer token, and any
// invalid token (unknown, expired, revoked, rev_sig changed) is
// {"active": false}.
func (s *Server) introspect(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ir, err := s.oauth.NewIntrospectionRequest(ctx, r, store.NewClientSession())
	if err != nil {
		s.logUnexpected("introspect", err)
		if fosite.ErrorToRFC6749Error(err).CodeField == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="oauth", error="invalid_client"`)
		}
		s.oauth.WriteIntrospectionError(ctx, w, err)
		return
	}
	s.oauth.WriteIntrospectionResponse(ctx, w, ir)
}

// revoke is RFC 7009 token revocation, by fosite: a client revokes one of
// its own tokens. Revoking either token of a grant revokes both, and every
// access token issued under that grant, so check_token then answers
// "revoked".
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	err := s.oauth.NewRevocationRequest(ctx, r)
	if err != nil {
		s.logUnexpected("revoke", err)
		if fosite.ErrorToRFC6749Error(err).CodeField == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="oauth", error="invalid_client"`)
		}
	}
	s.oauth.WriteRevocationResponse(ctx, w, err)
}
