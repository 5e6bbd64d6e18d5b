package fortune

import (
	"cmp"
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
// RS256 signature by a key of the JWKS (UAA: token_keys), exp, iss and the
// scopes. It cannot see revocation: a revoked token is accepted until it
// expires.
type jwtValidator struct {
	keys   *keySet
	issuer endpoint
	now    func() time.Time
}

// jwtClaims are the claims looked at. The scopes are UAA's and Spring
// Authorization Server's "scope" array, or a space-separated "scope"
// string (Keycloak, RFC 9068), or fosite's and Hydra's "scp" array. The
// user is UAA's user_name, else OpenID Connect's preferred_username.
type jwtClaims struct {
	Scope             stringList `json:"scope"`
	Scp               stringList `json:"scp"`
	Exp               int64      `json:"exp"`
	Nbf               int64      `json:"nbf"`
	Iss               string     `json:"iss"`
	Aud               stringList `json:"aud"`
	ClientID          string     `json:"client_id"`
	UserName          string     `json:"user_name"`
	PreferredUserName string     `json:"preferred_username"`
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
	issuer, err := v.issuer(ctx)
	if err != nil {
		return nil, &unavailableError{err}
	}
	if err := v.check(&c, issuer); err != nil {
		return nil, err
	}
	scope := c.Scope
	if scope == nil {
		scope = c.Scp
	}
	return &tokenInfo{Scope: scope, Exp: c.Exp, Aud: c.Aud, ClientID: c.ClientID, UserName: cmp.Or(c.UserName, c.PreferredUserName)}, nil
}

// check looks at the claims of a token whose signature verified.
func (v *jwtValidator) check(c *jwtClaims, issuer string) error {
	now := v.now()
	switch {
	case c.Iss != issuer:
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
