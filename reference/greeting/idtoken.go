package greeting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"
)

// idClaims are the ID token claims the client looks at.
type idClaims struct {
	jwt.Claims
	Nonce             string `json:"nonce"`
	Name              string `json:"name"`
	GivenName         string `json:"given_name"`
	FamilyName        string `json:"family_name"`
	UserName          string `json:"user_name"`
	PreferredUserName string `json:"preferred_username"`
}

// displayName is the best name the claims give.
func (c *idClaims) displayName() string {
	return firstNonBlank(c.Name, strings.TrimSpace(c.GivenName+" "+c.FamilyName), c.UserName, c.PreferredUserName, c.Subject)
}

// idClaimsOf returns the checked ID token claims of a code exchange; none
// (and no error) when the user did not grant openid.
func (s *Server) idClaimsOf(ctx context.Context, tk *tokenResponse, nonce string) (*idClaims, error) {
	if tk.IDToken == "" && !slices.Contains(strings.Fields(tk.Scope), "openid") && tk.Scope != "" {
		return &idClaims{}, nil
	}
	return s.checkIDToken(ctx, tk.IDToken, nonce)
}

// idTokenAlgorithms are the signatures accepted on ID tokens of a
// discovered server: RS256 is OpenID Connect's default, the others are
// what Keycloak, Hydra and Spring Authorization Server may be set to.
var idTokenAlgorithms = []string{string(jose.RS256), string(jose.PS256), string(jose.ES256)}

// checkIDToken checks the ID token of a code exchange (OpenID Connect Core
// 3.1.3.7): issued by the authorization server (iss), to this client (aud),
// not expired (exp), for this sign-in (the nonce). With a discovered
// server its signature is checked too, with the keys of its jwks_uri. With
// a UAA-shaped server (Options.AuthURL) it is not, as before: the token
// came straight from the token endpoint, which 3.1.3.7 allows.
func (s *Server) checkIDToken(ctx context.Context, raw, nonce string) (*idClaims, error) {
	if raw == "" {
		return nil, errors.New("no ID token, though the scope openid was granted")
	}
	tok, err := jwt.ParseSigned(raw)
	if err != nil || len(tok.Headers) != 1 {
		return nil, errors.New("the ID token is not a signed JWT")
	}
	m, err := s.metadata(ctx)
	if err != nil {
		return nil, err
	}
	var c idClaims
	if s.keys == nil {
		if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
			return nil, errors.New("the ID token's claims do not parse")
		}
	} else {
		h := tok.Headers[0]
		if !slices.Contains(idTokenAlgorithms, h.Algorithm) {
			return nil, fmt.Errorf("the ID token is signed with %q; accepted: %s", h.Algorithm, strings.Join(idTokenAlgorithms, ", "))
		}
		key, err := s.keys.key(ctx, s, m.JWKSURI, h.KeyID)
		if err != nil {
			return nil, err
		}
		if err := tok.Claims(key.Key, &c); err != nil {
			return nil, errors.New("the ID token's signature does not verify with the key " + key.KeyID + " of " + m.JWKSURI)
		}
	}
	issuer := s.issuer(m)
	switch {
	case c.Issuer != issuer:
		return nil, errors.New("the ID token was issued by " + c.Issuer + ", not " + issuer)
	case !slices.Contains(c.Audience, s.opts.ClientID):
		return nil, errors.New("the ID token is not for this client")
	case c.Expiry == nil:
		return nil, errors.New("the ID token has no expiry")
	case !s.now().Before(c.Expiry.Time()):
		return nil, errors.New("the ID token has expired")
	case !equalSecrets(c.Nonce, nonce):
		return nil, errors.New("the ID token's nonce is not this sign-in's")
	}
	return &c, nil
}

// keyRefetchInterval is the least time between two fetches of the JWKS:
// a kid not in the set is fetched for at most that often.
const keyRefetchInterval = 10 * time.Second

// idTokenKeys are a discovered server's signing keys, fetched on the
// first sign-in and again when an ID token names a key not in the set
// (a rotation), at most once per keyRefetchInterval. Sign-ins are few, and
// an ID token is only looked at after a successful code exchange, so a
// lock around the fetch is enough.
type idTokenKeys struct {
	mu      sync.Mutex
	set     *jose.JSONWebKeySet
	fetched time.Time
}

// key returns the signing key named kid; an ID token without a kid may
// use the set's one signing key.
func (k *idTokenKeys) key(ctx context.Context, s *Server, jwksURI, kid string) (*jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if key := k.lookup(kid); key != nil {
		return key, nil
	}
	if k.set == nil || !s.now().Before(k.fetched.Add(keyRefetchInterval)) {
		set, err := fetchKeys(ctx, s, jwksURI)
		if err != nil {
			return nil, err
		}
		k.set, k.fetched = set, s.now()
		if key := k.lookup(kid); key != nil {
			return key, nil
		}
	}
	return nil, fmt.Errorf("the ID token's signing key %q is not in %s", kid, jwksURI)
}

// lookup finds kid among the signing keys; k.mu is held.
func (k *idTokenKeys) lookup(kid string) *jose.JSONWebKey {
	if k.set == nil {
		return nil
	}
	var signing []jose.JSONWebKey
	for _, key := range k.set.Keys {
		if key.IsPublic() && (key.Use == "" || key.Use == "sig") {
			signing = append(signing, key)
		}
	}
	for i := range signing {
		if signing[i].KeyID == kid && kid != "" {
			return &signing[i]
		}
	}
	if kid == "" && len(signing) == 1 {
		return &signing[0]
	}
	return nil
}

func fetchKeys(ctx context.Context, s *Server, jwksURI string) (*jose.JSONWebKeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jwksURI, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the JWKS %s: %w", jwksURI, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the JWKS %s answered %d", jwksURI, resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("the JWKS %s is not a JWK set: %w", jwksURI, err)
	}
	return &set, nil
}
