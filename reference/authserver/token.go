package authserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// token is the token endpoint (RFC 6749 section 3.2), on fosite. Clients
// authenticate with HTTP Basic or with client_id and client_secret in the
// form. Exchanges of one code or one refresh token are serialized in this
// process, so that of two racing requests the second is the replay that
// revokes the grant. Across replicas the store decides: marking a code used
// and rotating a refresh token are compare-and-sets in one transaction
// (InvalidateAuthorizeCodeSession, RotateRefreshToken), so only one exchange
// succeeds.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	grant := r.PostFormValue("grant_type")
	if grant != "" && !slices.Contains(accounts.Grants, grant) {
		s.tokenError(ctx, w, nil, fosite.ErrUnsupportedGrantType.WithHintf("Supported grant types: %s.", strings.Join(accounts.Grants, ", ")))
		return
	}
	if _, _, basic := r.BasicAuth(); !basic && r.PostFormValue("client_id") == "" {
		s.tokenError(ctx, w, nil, fosite.ErrInvalidClient.WithHint("Authenticate with HTTP Basic, or with client_id and client_secret in the form."))
		return
	}
	switch grant {
	case "client_credentials":
		ctx = store.WithAuthoritiesAsScopes(ctx)
	case "authorization_code":
		defer s.locks.lock("code:" + r.PostFormValue("code"))()
	case "refresh_token":
		defer s.locks.lock("refresh:" + r.PostFormValue("refresh_token"))()
	}
	s.issueTokens(ctx, w, r)
}

func (s *Server) issueTokens(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	ar, err := s.oauth.NewAccessRequest(ctx, r, store.NewClientSession())
	if err != nil {
		s.tokenError(ctx, w, ar, codeExpiredAsUAA(err, r))
		return
	}
	if ar.GetGrantTypes().ExactOne("client_credentials") {
		grantClientScopes(ar)
	}
	resp, err := s.oauth.NewAccessResponse(ctx, ar)
	if err != nil {
		s.tokenError(ctx, w, ar, codeExpiredAsUAA(codeUsedAsInvalidGrant(err), r))
		return
	}
	if jti := jtiOf(resp.GetAccessToken()); jti != "" {
		resp.SetExtra("jti", jti)
	}
	s.oauth.WriteAccessResponse(ctx, w, ar, resp)
}

// grantClientScopes grants a client_credentials request what it asked
// for, or, as UAA does, all the client's authorities when it asked for none
// (fosite checked the requested ones against the authorities). The client
// is the token's subject.
func grantClientScopes(ar fosite.AccessRequester) {
	if sess, ok := store.SessionOf(ar); ok {
		sess.Subject = ar.GetClient().GetID()
	}
	scopes := ar.GetRequestedScopes()
	if len(scopes) == 0 {
		scopes = ar.GetClient().GetScopes()
	}
	for _, sc := range scopes {
		ar.GrantScope(sc)
	}
}

// tokenError writes an RFC 6749 error; a failed client authentication (401)
// also names the scheme to use, as RFC 6749 section 5.2 asks.
func (s *Server) tokenError(ctx context.Context, w http.ResponseWriter, ar fosite.AccessRequester, err error) {
	s.logUnexpected("token", err)
	if fosite.ErrorToRFC6749Error(err).CodeField == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth", error="invalid_client"`)
	}
	s.oauth.WriteAccessError(ctx, w, ar, err)
}

// jtiOf reads the jti of an access token this server just signed (no
// verification needed), for the token response's "jti" field.
func jtiOf(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		JTI string `json:"jti"`
	}
	_ = json.Unmarshal(payload, &c)
	return c.JTI
}

// codeExpiredAsUAA answers a code exchanged after its lifetime as UAA's
// UaaTokenStore does: 400 invalid_grant, "Authorization code expired:
// <code>". fosite finds the code expired when it reads the stored request
// (the request step, or the response step when the request step's session
// was not hydrated) and wraps its expired-token error (invalid_token) in
// invalid_grant or invalid_request, with descriptions of its own.
func codeExpiredAsUAA(err error, r *http.Request) error {
	var outer, cause *fosite.RFC6749Error
	if r.PostFormValue("grant_type") != "authorization_code" || !errors.As(err, &outer) ||
		!errors.As(outer.Cause(), &cause) || cause.ErrorField != fosite.ErrTokenExpired.ErrorField {
		return err
	}
	return &fosite.RFC6749Error{ErrorField: fosite.ErrInvalidGrant.ErrorField, CodeField: http.StatusBadRequest,
		DescriptionField: "Authorization code expired: " + r.PostFormValue("code")}
}

// codeUsedAsInvalidGrant answers invalid_grant (400) for a code a concurrent
// exchange used first, at this replica or another: fosite's response step
// reads the code again (ErrInvalidatedAuthorizeCode when it was used since
// the request step) and then marks it used (store.ErrCodeUsed when it lost the
// race), and wraps either as server_error. The tokens the winning exchange
// is issuing are not revoked here (they may not be stored yet); a later
// replay of the code revokes them, as fosite does for every replay.
func codeUsedAsInvalidGrant(err error) error {
	var rfc *fosite.RFC6749Error
	if errors.As(err, &rfc) && (errors.Is(rfc.Cause(), store.ErrCodeUsed) || errors.Is(rfc.Cause(), fosite.ErrInvalidatedAuthorizeCode)) {
		return fosite.ErrInvalidGrant.WithHint("The authorization code has already been used.")
	}
	return err
}
