package authtest

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"
)

// Claims decodes a JWT's payload without verifying it.
func Claims(t testing.TB, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Expiry is the exp of a JWT.
func Expiry(t testing.TB, token string) time.Time {
	t.Helper()
	exp, ok := Claims(t, token)["exp"].(float64)
	if !ok {
		t.Fatalf("no exp in %s", token)
	}
	return time.Unix(int64(exp), 0)
}

// Forge signs claims with key under kid, RS256: a token that looks like
// the server's but that it did not issue.
func Forge(t testing.TB, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	token, err := jwt.Signed(signer).Claims(claims).CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// Kid is the kid in a JWT's header.
func Kid(t testing.TB, token string) string {
	t.Helper()
	tok, err := jwt.ParseSigned(token)
	if err != nil || len(tok.Headers) != 1 {
		t.Fatalf("not a signed JWT: %q", token)
	}
	return tok.Headers[0].KeyID
}
