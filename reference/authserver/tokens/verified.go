package tokens

import (
	"net/http"
	"sync"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

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
	m  map[string]*Verified
}

// Verified is the claims of a verified token and check_token's answer
// for them, encoded once: the claims of a token never change, and encoding
// them was half of check_token's time once the store reads were memoized.
type Verified struct {
	Claims Claims
	Status int    // of check_token's answer: 200, or 500 if it could not be encoded
	Answer []byte // its body
	key    string // its key in the store: a digest, made once (store.AccessKey)
}

func newVerified(c *Claims) *Verified {
	v := &Verified{Claims: *c}
	v.Status, v.Answer = encodeCheckTokenAnswer(c)
	return v
}

func (v *verifiedTokens) get(raw string) (*Verified, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[raw]
	return e, ok
}

func (v *verifiedTokens) add(raw string, e *Verified) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxVerifiedTokens {
		v.m = make(map[string]*Verified) // dropping all is cheap and keeps the bound
	}
	v.m[raw] = e
}

// checkTokenResult is the answer of check_token (spec 2.2): the token's
// claims and "revocable", always true here (every token can be revoked).
type checkTokenResult struct {
	Claims
	Revocable bool `json:"revocable"`
}

// encodeCheckTokenAnswer is check_token's answer for a valid token with
// claims, as httpio.WriteJSON would write it: status and body. verifiedTokens
// keeps it with the claims.
func encodeCheckTokenAnswer(claims *Claims) (int, []byte) {
	return httpio.EncodeJSON(http.StatusOK, checkTokenResult{Claims: *claims, Revocable: true})
}
