package fortune

import (
	"net/http"
	"strings"
)

// maxTokenBytes bounds what is worth sending to the authorization server;
// its tokens are about 1 KiB.
const maxTokenBytes = 16 << 10

// bearerToken reads the token of the Authorization header (RFC 6750
// section 2.1). No header, or another scheme, is errNoToken: the caller did
// not try a token. A Bearer header that does not hold exactly one
// b64token is a malformed request.
func bearerToken(h http.Header) (string, error) {
	values := h.Values("Authorization")
	switch {
	case len(values) == 0:
		return "", errNoToken
	case len(values) > 1:
		return "", invalidRequest("Send one Authorization header")
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", errNoToken
	}
	token = strings.Trim(token, " ")
	if !isB64Token(token) {
		return "", invalidRequest("The Authorization header must be Bearer followed by one token")
	}
	if len(token) > maxTokenBytes {
		return "", invalidToken("Token was not recognised")
	}
	return token, nil
}

// isB64Token reports whether s is an RFC 6750 b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
// It runs on every request, over a token of about 1 KiB: a table lookup
// per byte.
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		if !b64TokenChars[body[i]] {
			return false
		}
	}
	return true
}

// b64TokenChars marks the bytes a b64token has before its padding.
var b64TokenChars = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/") {
		t[c] = true
	}
	return t
}()
