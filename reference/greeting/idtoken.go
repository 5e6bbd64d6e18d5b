package greeting

import (
	"errors"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v3/jwt"
)

// idClaims are the ID token claims the client looks at.
type idClaims struct {
	jwt.Claims
	Nonce      string `json:"nonce"`
	Name       string `json:"name"`
	GivenName  string `json:"given_name"`
	FamilyName string `json:"family_name"`
	UserName   string `json:"user_name"`
}

// displayName is the best name the claims give.
func (c *idClaims) displayName() string {
	return firstNonBlank(c.Name, strings.TrimSpace(c.GivenName+" "+c.FamilyName), c.UserName, c.Subject)
}

// idClaimsOf returns the checked ID token claims of a code exchange; none
// (and no error) when the user did not grant openid.
func (s *Server) idClaimsOf(tk *tokenResponse, nonce string) (*idClaims, error) {
	if tk.IDToken == "" && !slices.Contains(strings.Fields(tk.Scope), "openid") && tk.Scope != "" {
		return &idClaims{}, nil
	}
	return s.checkIDToken(tk.IDToken, nonce)
}

// checkIDToken checks the ID token of a code exchange: issued by the
// authorization server, to this client, for this sign-in (the nonce). Its
// signature is not checked: it came straight from the token endpoint, which
// OpenID Connect Core (3.1.3.7) allows; the nonce is what ties it to the
// browser's sign-in.
func (s *Server) checkIDToken(raw, nonce string) (*idClaims, error) {
	if raw == "" {
		return nil, errors.New("no ID token, though the scope openid was granted")
	}
	tok, err := jwt.ParseSigned(raw)
	if err != nil {
		return nil, errors.New("the ID token is not a signed JWT")
	}
	var c idClaims
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		return nil, errors.New("the ID token's claims do not parse")
	}
	switch {
	case c.Issuer != s.opts.AuthURL+"/oauth/token":
		return nil, errors.New("the ID token was issued by " + c.Issuer + ", not " + s.opts.AuthURL + "/oauth/token")
	case !slices.Contains(c.Audience, s.opts.ClientID):
		return nil, errors.New("the ID token is not for this client")
	case !equalSecrets(c.Nonce, nonce):
		return nil, errors.New("the ID token's nonce is not this sign-in's")
	}
	return &c, nil
}
