package authserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"

	"github.com/fortune-tck/fortune-tck/reference/authserver/keys"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// maxTokenBytes bounds what is worth parsing as a token; ours are ~1 KiB.
const maxTokenBytes = 8 << 10

// tokenStrategy is fosite's CoreStrategy. Authorization codes and refresh
// tokens are fosite's HMAC tokens (opaque, so check_token cannot mistake a
// refresh token for an access token); access tokens are RS256 JWTs with
// UAA's claims, stored by their signature part.
type tokenStrategy struct {
	*oauth2.HMACSHAStrategy
	keys      *keys.Ring
	store     *store.Store
	issuer    string
	accessTTL time.Duration
	now       func() time.Time // check_token's clock; tests move it
	verified  verifiedTokens
}

var _ oauth2.CoreStrategy = (*tokenStrategy)(nil)

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
func (t *tokenStrategy) AccessTokenSignature(_ context.Context, token string) string {
	return jwtSignature(token)
}

// GenerateAccessToken signs the claims of r's grant.
func (t *tokenStrategy) GenerateAccessToken(_ context.Context, r fosite.Requester) (string, string, error) {
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
func (t *tokenStrategy) ValidateAccessToken(_ context.Context, _ fosite.Requester, token string) error {
	switch _, err := t.inspect(token); {
	case errors.Is(err, errTokenExpired):
		return fosite.ErrTokenExpired
	case err != nil:
		return fosite.ErrInactiveToken.WithWrap(err)
	}
	return nil
}

// claimsFor builds the access token claims of r. The expiry is the one
// fosite set on the session for this grant.
func (t *tokenStrategy) claimsFor(r fosite.Requester) (*accessClaims, error) {
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
	c := &accessClaims{
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

// inspect decides whether raw is a valid access token of this server, in
// UAA's order: not ours (or not an access token at all), expired, revoked
// (by revocation or because its rev_sig no longer matches).
func (t *tokenStrategy) inspect(raw string) (*accessClaims, error) {
	v, err := t.inspectVerified(raw)
	if v == nil {
		return nil, err
	}
	return &v.claims, err
}

// inspectVerified is inspect with the entry of verifiedTokens, which holds
// check_token's answer too.
func (t *tokenStrategy) inspectVerified(raw string) (*verifiedToken, error) {
	v, ok := t.verified.get(raw)
	if !ok {
		c := new(accessClaims)
		if raw == "" || len(raw) > maxTokenBytes || t.keys.Verify(raw, c) != nil {
			return nil, errTokenUnknown
		}
		v = newVerifiedToken(c)
		v.key = t.store.AccessKey(jwtSignature(raw))
		t.verified.add(raw, v)
	}
	c := &v.claims
	if t.now().Unix() >= c.Exp {
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

// maxVerifiedTokens bounds verifiedTokens (about 3 KiB per entry: the token,
// its claims, check_token's answer).
const maxVerifiedTokens = 4096

// verifiedTokens remembers the claims of tokens whose signature verified: a
// resource server checks the same token on every request, and the RSA
// verification costs more than all the rest of check_token. An entry is
// found by the whole token, so only that exact token gets its claims back;
// expiry, revocation and rev_sig are still checked on every call. The
// entries are shared: read them, never change them.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[string]*verifiedToken
}

// verifiedToken is the claims of a verified token and check_token's answer
// for them, encoded once: the claims of a token never change, and encoding
// them was half of check_token's time once the store reads were memoized.
type verifiedToken struct {
	claims accessClaims
	key    string // its key in the store: a digest, made once (store.AccessKey)
	status int    // of check_token's answer: 200, or 500 if it could not be encoded
	answer []byte // its body
}

func newVerifiedToken(c *accessClaims) *verifiedToken {
	v := &verifiedToken{claims: *c}
	v.status, v.answer = encodeCheckTokenAnswer(c)
	return v
}

func (v *verifiedTokens) get(raw string) (*verifiedToken, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[raw]
	return e, ok
}

func (v *verifiedTokens) add(raw string, e *verifiedToken) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxVerifiedTokens {
		v.m = make(map[string]*verifiedToken) // dropping all is cheap and keeps the bound
	}
	v.m[raw] = e
}
