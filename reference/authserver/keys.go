package authserver

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

// signingKey is the RSA key that signs access and ID tokens. Its kid (the
// RFC 7638 thumbprint) names it in token headers and in /token_keys, so a
// resource server that caches keys can tell when the key changed.
type signingKey struct {
	created time.Time // when it was stored; see keyring
	private *rsa.PrivateKey
	kid     string
	jwk     *jose.JSONWebKey // private; go-jose puts its KeyID in the header
	signer  jose.Signer
	public  publicJWK
}

// publicJWK is one entry of /token_keys: the JWK fields plus UAA's "value",
// the PEM public key that older UAA clients read.
type publicJWK struct {
	Kid   string `json:"kid"`
	Alg   string `json:"alg"`
	Kty   string `json:"kty"`
	Use   string `json:"use"`
	N     string `json:"n"`
	E     string `json:"e"`
	Value string `json:"value"`
}

func newSigningKey(k *rsa.PrivateKey) (*signingKey, error) {
	if k == nil {
		var err error
		if k, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			return nil, fmt.Errorf("authserver: generating the signing key: %w", err)
		}
	}
	if k.N.BitLen() < 2048 {
		return nil, errors.New("authserver: the signing key must have at least 2048 bits")
	}
	pub := jose.JSONWebKey{Key: &k.PublicKey, Algorithm: string(jose.RS256), Use: "sig"}
	thumb, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("authserver: signing key: %w", err)
	}
	kid := base64.RawURLEncoding.EncodeToString(thumb)
	jwk := &jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.RS256), Use: "sig"}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jwk}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, fmt.Errorf("authserver: signing key: %w", err)
	}
	pemText, err := publicPEM(&k.PublicKey)
	if err != nil {
		return nil, err
	}
	return &signingKey{private: k, kid: kid, jwk: jwk, signer: signer, public: publicJWK{
		Kid: kid, Alg: string(jose.RS256), Kty: "RSA", Use: "sig",
		N:     base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
		E:     base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
		Value: pemText,
	}}, nil
}

func publicPEM(pub *rsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("authserver: encoding the public key: %w", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// sign serializes claims as a compact RS256 JWT.
func (k *signingKey) sign(claims any) (string, error) {
	return jwt.Signed(k.signer).Claims(claims).CompactSerialize()
}

// errBadJWT covers every reason a string is not one of our JWTs.
var errBadJWT = errors.New("not a token signed by this server")

// verify checks that raw is an RS256 JWT signed by this key and decodes its
// claims into out. Expiry is the caller's business: check_token reports it
// with its own message.
func (k *signingKey) verify(raw string, out any) error {
	tok, err := jwt.ParseSigned(raw)
	if err != nil || len(tok.Headers) != 1 {
		return errBadJWT
	}
	if h := tok.Headers[0]; h.Algorithm != string(jose.RS256) || (h.KeyID != "" && h.KeyID != k.kid) {
		return errBadJWT
	}
	if err := tok.Claims(&k.private.PublicKey, out); err != nil {
		return errBadJWT
	}
	return nil
}

// tokenKeys serves the JWKS.
func (s *Server) tokenKeys(w http.ResponseWriter, _ *http.Request) {
	keys := s.keys.all()
	jwks := make([]publicJWK, len(keys))
	for i, k := range keys {
		jwks[i] = k.public
	}
	httpio.WriteJSON(w, http.StatusOK, map[string][]publicJWK{"keys": jwks})
}

// tokenKey serves the key that signs now, as UAA's /token_key does.
func (s *Server) tokenKey(w http.ResponseWriter, _ *http.Request) {
	httpio.WriteJSON(w, http.StatusOK, s.keys.current().public)
}
