package keys

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
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"
)

// Key is an RSA key that signs access and ID tokens. Its kid (the
// RFC 7638 thumbprint) names it in token headers and in /token_keys, so a
// resource server that caches keys can tell when the key changed.
type Key struct {
	created time.Time // when it was stored; see Ring
	private *rsa.PrivateKey
	kid     string
	jwk     *jose.JSONWebKey // private; go-jose puts its KeyID in the header
	signer  jose.Signer
	public  PublicJWK
}

// PublicJWK is one entry of /token_keys: the JWK fields plus UAA's "value",
// the PEM public key that older UAA clients read.
type PublicJWK struct {
	Kid   string `json:"kid"`
	Alg   string `json:"alg"`
	Kty   string `json:"kty"`
	Use   string `json:"use"`
	N     string `json:"n"`
	E     string `json:"e"`
	Value string `json:"value"`
}

// newKey makes the Key of k, or of a new 2048-bit key when k is nil.
func newKey(k *rsa.PrivateKey) (*Key, error) {
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
	return &Key{private: k, kid: kid, jwk: jwk, signer: signer, public: PublicJWK{
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

// Kid is the key's id: its RFC 7638 thumbprint.
func (k *Key) Kid() string { return k.kid }

// JWK is the private key as go-jose (and fosite's ID token signer) takes
// it; go-jose puts its KeyID in the header.
func (k *Key) JWK() *jose.JSONWebKey { return k.jwk }

// Public is the key's entry of /token_keys.
func (k *Key) Public() PublicJWK { return k.public }

// Sign serializes claims as a compact RS256 JWT.
func (k *Key) Sign(claims any) (string, error) {
	return jwt.Signed(k.signer).Claims(claims).CompactSerialize()
}

// errBadJWT covers every reason a string is not one of our JWTs.
var errBadJWT = errors.New("not a token signed by this server")

// verify checks that raw is an RS256 JWT signed by this key and decodes its
// claims into out. Expiry is the caller's business: check_token reports it
// with its own message.
func (k *Key) verify(raw string, out any) error {
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
