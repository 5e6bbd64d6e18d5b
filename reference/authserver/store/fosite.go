package store

import (
	"context"
	"errors"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/handler/pkce"
)

// The fosite storage interfaces the composed handlers need; compose asserts
// them at run time, these at compile time.
var (
	_ fosite.Storage                     = (*Store)(nil)
	_ oauth2.CoreStorage                 = (*Store)(nil)
	_ oauth2.TokenRevocationStorage      = (*Store)(nil)
	_ openid.OpenIDConnectRequestStorage = (*Store)(nil)
	_ pkce.PKCERequestStorage            = (*Store)(nil)
)

// lookup adapts a table read to fosite's conventions: unknown is
// ErrNotFound, inactive is the given error together with the request (fosite
// needs the request to revoke what was issued from a replayed code or a
// reused refresh token).
func lookup(t *tokenTable, sig string, inactive error) (fosite.Requester, error) {
	req, active, ok, err := t.get(sig)
	switch {
	case err != nil:
		return nil, fosite.ErrServerError.WithWrap(err).WithDebug(err.Error())
	case !ok:
		return nil, fosite.ErrNotFound
	case !active:
		return req, inactive
	}
	return req, nil
}

func (s *Store) CreateAuthorizeCodeSession(_ context.Context, sig string, r fosite.Requester) error {
	return s.codes.put(sig, r)
}

func (s *Store) GetAuthorizeCodeSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	return lookup(s.codes, sig, fosite.ErrInvalidatedAuthorizeCode)
}

// InvalidateAuthorizeCodeSession marks a code used; the entry stays until
// the code expires, so a replay is recognized as one. It is the
// compare-and-set that lets one exchange of a code succeed: fosite checked
// that the code was unused in an earlier read, and another exchange (at
// another replica on the same PostgreSQL, which the token endpoint's
// in-process lock does not reach) may have used it since. The read and the
// write are one store transaction (bbolt: one writer at a time; PostgreSQL:
// serializable, retried on conflict), so of two racing exchanges exactly one
// sees the code active; the other fails with ErrCodeUsed.
func (s *Store) InvalidateAuthorizeCodeSession(_ context.Context, sig string) error {
	found, wasActive, err := s.codes.deactivate(sig)
	switch {
	case err != nil:
		return err
	case !found:
		return fosite.ErrNotFound
	case !wasActive:
		return ErrCodeUsed
	}
	return nil
}

// ErrCodeUsed is a code another exchange used between fosite's check and
// this exchange's InvalidateAuthorizeCodeSession; the token endpoint
// answers invalid_grant (see codeUsedAsInvalidGrant).
var ErrCodeUsed = errors.New("authserver: the authorization code was used by a concurrent exchange")

func (s *Store) CreatePKCERequestSession(_ context.Context, sig string, r fosite.Requester) error {
	return s.pkce.put(sig, r)
}

func (s *Store) GetPKCERequestSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	return lookup(s.pkce, sig, fosite.ErrNotFound)
}

func (s *Store) DeletePKCERequestSession(_ context.Context, sig string) error {
	return s.pkce.delete(sig)
}

func (s *Store) CreateOpenIDConnectSession(_ context.Context, code string, r fosite.Requester) error {
	return s.oidc.put(code, r)
}

func (s *Store) GetOpenIDConnectSession(_ context.Context, code string, _ fosite.Requester) (fosite.Requester, error) {
	return lookup(s.oidc, code, openid.ErrNoSessionFound)
}

func (s *Store) DeleteOpenIDConnectSession(_ context.Context, code string) error {
	return s.oidc.delete(code)
}

func (s *Store) CreateAccessTokenSession(_ context.Context, sig string, r fosite.Requester) error {
	return s.access.put(sig, r)
}

// GetAccessTokenSession answers ErrInactiveToken for a revoked token, which
// fosite's introspection reports as inactive and its revocation as done.
func (s *Store) GetAccessTokenSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	return lookup(s.access, sig, fosite.ErrInactiveToken)
}

func (s *Store) DeleteAccessTokenSession(_ context.Context, sig string) error {
	return s.access.delete(sig)
}

func (s *Store) CreateRefreshTokenSession(_ context.Context, sig, _ string, r fosite.Requester) error {
	return s.refresh.put(sig, r)
}

// GetRefreshTokenSession answers ErrInactiveToken for a used or revoked
// refresh token: fosite then revokes the whole grant (reuse detection).
func (s *Store) GetRefreshTokenSession(_ context.Context, sig string, _ fosite.Session) (fosite.Requester, error) {
	return lookup(s.refresh, sig, fosite.ErrInactiveToken)
}

func (s *Store) DeleteRefreshTokenSession(_ context.Context, sig string) error {
	return s.refresh.delete(sig)
}

// RotateRefreshToken retires the refresh token being used and the access
// tokens issued so far for its grant; fosite then issues new ones under the
// same request id.
func (s *Store) RotateRefreshToken(_ context.Context, requestID, sig string) error {
	found, wasActive, err := s.refresh.deactivate(sig)
	if err != nil {
		return err
	}
	if !found {
		return fosite.ErrNotFound
	}
	if !wasActive {
		return fosite.ErrInactiveToken
	}
	return s.access.deactivateRequest(requestID)
}

func (s *Store) RevokeRefreshToken(_ context.Context, requestID string) error {
	return s.refresh.deactivateRequest(requestID)
}

func (s *Store) RevokeAccessToken(_ context.Context, requestID string) error {
	return s.access.deactivateRequest(requestID)
}
