package tokens

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
)

// Claims are the claims of an access token, with UAA's names and JSON
// types (scope and aud are arrays, times are seconds). check_token answers
// with these fields plus "revocable". User fields are absent from a client's
// own (client_credentials) token, as in UAA.
type Claims struct {
	JTI       string   `json:"jti"`
	Sub       string   `json:"sub"`
	Scope     []string `json:"scope"`
	ClientID  string   `json:"client_id"`
	CID       string   `json:"cid"`
	AZP       string   `json:"azp"`
	GrantType string   `json:"grant_type"`
	UserID    string   `json:"user_id,omitempty"`
	Origin    string   `json:"origin,omitempty"`
	UserName  string   `json:"user_name,omitempty"`
	Email     string   `json:"email,omitempty"`
	AuthTime  int64    `json:"auth_time,omitempty"`
	RevSig    string   `json:"rev_sig"`
	Iat       int64    `json:"iat"`
	Exp       int64    `json:"exp"`
	Iss       string   `json:"iss"`
	ZID       string   `json:"zid"`
	Aud       []string `json:"aud"`
	Nonce     string   `json:"nonce,omitempty"`
}

// audiences is UAA's aud: the client id, then the resource of each granted
// scope, the part before its last dot (fortunes.read -> fortunes), or the
// whole scope when it has none (openid).
func audiences(clientID string, scopes []string) []string {
	aud := []string{clientID}
	for _, sc := range scopes {
		res := sc
		if i := strings.LastIndexByte(sc, '.'); i > 0 {
			res = sc[:i]
		}
		if !slices.Contains(aud, res) {
			aud = append(aud, res)
		}
	}
	return aud
}

// newJTI returns a random token id (32 hex digits, as UAA's).
func newJTI() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
