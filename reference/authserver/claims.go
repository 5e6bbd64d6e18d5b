package authserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strings"
)

// accessClaims are the claims of an access token, with UAA's names and JSON
// types (scope and aud are arrays, times are seconds). check_token answers
// with these fields plus "revocable". User fields are absent from a client's
// own (client_credentials) token, as in UAA.
type accessClaims struct {
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

// revSig is the revocation signature: a digest over what identifies the
// grant (client id and secret, user id, password, e-mail and user name).
// Changing any of them, a password above all, makes earlier tokens fail the
// comparison in check_token, which then answers "revoked". UAA uses murmur3;
// any stable digest will do.
func revSig(c *clientRecord, u *userRecord) string {
	h := sha256.New()
	writeField(h, c.ID)
	writeField(h, string(c.SecretHash))
	if u != nil {
		writeField(h, u.ID)
		writeField(h, string(u.PasswordHash))
		writeField(h, u.Email)
		writeField(h, u.UserName)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// writeField writes s with its length, so that fields cannot run together.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// newJTI returns a random token id (32 hex digits, as UAA's).
func newJTI() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newID returns a random (version 4) UUID, the form of UAA's ids.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
