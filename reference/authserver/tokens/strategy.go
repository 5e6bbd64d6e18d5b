package tokens

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"

	"github.com/fortune-tck/fortune-tck/reference/authserver/keys"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// maxTokenBytes bounds what is worth parsing as a token; ours are ~1 KiB.
const maxTokenBytes = 8 << 10

// Strategy is fosite's CoreStrategy. Authorization codes and refresh
// tokens are fosite's HMAC tokens (opaque, so check_token cannot mistake a
// refresh token for an access token); access tokens are RS256 JWTs with
// UAA's claims, stored by their signature part.
type Strategy struct {
	*oauth2.HMACSHAStrategy
	// Now is the clock of the expiry check (time.Now); tests move it.
	Now func() time.Time

	keys      *keys.Ring
	store     *store.Store
	issuer    string
	accessTTL time.Duration // of a token whose grant set none
	verified  verifiedTokens
}

var _ oauth2.CoreStrategy = (*Strategy)(nil)

// New is the strategy of fosite's HMAC codes and refresh tokens and of
// access tokens signed with the keys of ring, issued by issuer, and kept
// (and checked) in st.
func New(hmac *oauth2.HMACSHAStrategy, ring *keys.Ring, st *store.Store, issuer string, accessTTL time.Duration) *Strategy {
	return &Strategy{HMACSHAStrategy: hmac, Now: time.Now, keys: ring, store: st, issuer: issuer, accessTTL: accessTTL}
}

// The errors of an access token that is not valid, with UAA's messages.
var (
	errTokenUnknown = errors.New("Token was not recognised")
	errTokenExpired = errors.New("Token has expired")
	errTokenRevoked = errors.New("The token has been revoked")
)

// jwtSignature is the signature part of a compact JWT, the key under which
// the token is stored.
func jwtSignature(token string) string {
	return token[strings.LastIndexByte(token, '.')+1:]
}

// AccessTokenSignature is fosite's storage key of an access token.
func (t *Strategy) AccessTokenSignature(_ context.Context, token string) string {
	return jwtSignature(token)
}

// GenerateAccessToken signs the claims of r's grant.
func (t *Strategy) GenerateAccessToken(_ context.Context, r fosite.Requester) (string, string, error) {
	claims, err := t.claimsFor(r)
	if err != nil {
		return "", "", err
	}
	token, err := t.keys.Current().Sign(claims)
	if err != nil {
		return "", "", err
	}
	return token, jwtSignature(token), nil
}

// ValidateAccessToken is what fosite's introspection asks once it found the
// token in the store.
func (t *Strategy) ValidateAccessToken(_ context.Context, _ fosite.Requester, token string) error {
	switch _, err := t.Inspect(token); {
	case errors.Is(err, errTokenExpired):
		return fosite.ErrTokenExpired
	case err != nil:
		return fosite.ErrInactiveToken.WithWrap(err)
	}
	return nil
}

// claimsFor builds the access token claims of r. The expiry is the one
// fosite set on the session for this grant.
func (t *Strategy) claimsFor(r fosite.Requester) (*Claims, error) {
	sess, ok := store.SessionOf(r)
	if !ok {
		return nil, errors.New("authserver: request without a session of this server")
	}
	fc, ok := r.GetClient().(*store.FositeClient)
	if !ok {
		return nil, errors.New("authserver: request without a client of this server")
	}
	now := time.Now()
	exp := sess.GetExpiresAt(fosite.AccessToken)
	if exp.IsZero() {
		exp = now.Add(t.accessTTL)
	}
	scopes := append([]string{}, r.GetGrantedScopes()...)
	c := &Claims{
		JTI: newJTI(), Sub: fc.ID, Scope: scopes,
		ClientID: fc.ID, CID: fc.ID, AZP: fc.ID,
		GrantType: grantTypeOf(r),
		Iat:       now.Unix(), Exp: exp.Unix(),
		Iss: t.issuer, ZID: store.ZoneID,
		Aud:   audiences(fc.ID, scopes),
		Nonce: sess.Nonce,
	}
	var u *store.User
	if sess.UserID != "" {
		if u, ok = t.store.User(sess.UserID); !ok {
			return nil, fosite.ErrInvalidGrant.WithHint("The user of this grant no longer exists.")
		}
		c.Sub, c.UserID, c.UserName, c.Email, c.Origin = u.ID, u.ID, u.UserName, u.Email, store.OriginUAA
		c.AuthTime = sess.AuthTime.Unix()
	}
	c.RevSig = store.RevSig(fc.Client, u)
	return c, nil
}

func grantTypeOf(r fosite.Requester) string {
	if ar, ok := r.(fosite.AccessRequester); ok && len(ar.GetGrantTypes()) > 0 {
		return ar.GetGrantTypes()[0]
	}
	return ""
}

// Inspect decides whether raw is a valid access token of this server, in
// UAA's order: not ours (or not an access token at all), expired, revoked
// (by revocation or because its rev_sig no longer matches). The error's
// text is UAA's message.
func (t *Strategy) Inspect(raw string) (*Claims, error) {
	v, err := t.InspectVerified(raw)
	if v == nil {
		return nil, err
	}
	return &v.Claims, err
}

// InspectVerified is Inspect with the token's entry of the verified
// tokens, which holds check_token's answer too: read it, never change it.
func (t *Strategy) InspectVerified(raw string) (*Verified, error) {
	v, ok := t.verified.get(raw)
	if !ok {
		c := new(Claims)
		if raw == "" || len(raw) > maxTokenBytes || t.keys.Verify(raw, c) != nil {
			return nil, errTokenUnknown
		}
		v = newVerified(c)
		v.key = t.store.AccessKey(jwtSignature(raw))
		t.verified.add(raw, v)
	}
	c := &v.Claims
	if t.Now().Unix() >= c.Exp {
		return v, errTokenExpired
	}
	found, active, err := t.store.AccessState(v.key)
	if err != nil {
		t.store.ReadFailed("access token", err)
		return nil, errTokenUnknown
	}
	if !found {
		return nil, errTokenUnknown
	}
	if !active || c.RevSig != t.store.CurrentRevSig(c.ClientID, c.UserID) {
		return v, errTokenRevoked
	}
	return v, nil
}
