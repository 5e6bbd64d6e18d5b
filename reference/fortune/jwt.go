package fortune

import (
	"context"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"
)

// notBeforeLeeway tolerates clocks that are a little behind the
// authorization server's, for the nbf claim only: an expired token is
// refused on the second, as check_token refuses it.
const notBeforeLeeway = time.Minute

// jwtValidator checks access tokens locally (spec 5.3's alternative): an
// RS256 signature by a key of token_keys, exp, iss and the scope array. It
// cannot see revocation: a revoked token is accepted until it expires.
type jwtValidator struct {
	keys   *keySet
	issuer string
	now    func() time.Time
}

// jwtClaims are the claims looked at; UAA's scope is an array.
type jwtClaims struct {
	Scope    []string `json:"scope"`
	Exp      int64    `json:"exp"`
	Nbf      int64    `json:"nbf"`
	Iss      string   `json:"iss"`
	ClientID string   `json:"client_id"`
	UserName string   `json:"user_name"`
}

func (v *jwtValidator) validate(ctx context.Context, raw string) (*tokenInfo, error) {
	tok, err := jwt.ParseSigned(raw)
	if err != nil || len(tok.Headers) != 1 {
		return nil, invalidToken("Token was not recognised: not a signed JWT")
	}
	h := tok.Headers[0]
	if h.Algorithm != string(jose.RS256) || h.KeyID == "" {
		return nil, invalidToken("Token was not recognised: not signed with RS256 by a named key")
	}
	key, err := v.keys.key(ctx, h.KeyID)
	if err != nil {
		return nil, err
	}
	var c jwtClaims
	if err := tok.Claims(key, &c); err != nil {
		return nil, invalidToken("Token was not recognised: its signature or claims are not valid")
	}
	if err := v.check(&c); err != nil {
		return nil, err
	}
	return &tokenInfo{Scope: c.Scope, Exp: c.Exp, ClientID: c.ClientID, UserName: c.UserName}, nil
}

// check looks at the claims of a token whose signature verified.
func (v *jwtValidator) check(c *jwtClaims) error {
	now := v.now()
	switch {
	case c.Iss != v.issuer:
		return invalidToken("Token was not recognised: another issuer")
	case c.Exp == 0:
		return invalidToken("Token was not recognised: it has no expiry")
	case now.Unix() >= c.Exp:
		return invalidToken("Token has expired")
	case c.Nbf != 0 && now.Add(notBeforeLeeway).Unix() < c.Nbf:
		return invalidToken("Token is not valid yet")
	}
	return nil
}
