package configapp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
)

// realm is Spring Security's default Basic realm.
const realm = `Basic realm="Spring"`

// authorized applies Spring Boot 1.x's HTTP Basic rules to one request:
// security.basic.enabled guards the application endpoints and
// management.security.enabled the operational ones. Settings are the
// current snapshot's, so a refresh re-binds them too (see the package doc).
func (a *App) authorized(r *http.Request, s *settings, operational bool) bool {
	required := s.basicEnabled
	if operational {
		required = s.managementEnabled
	}
	if !required {
		return true
	}
	user, password, ok := r.BasicAuth()
	if !ok {
		return false
	}
	want := s.password
	if want == "" {
		want = a.generated
	}
	// Both comparisons always run, and on fixed-length digests, so timing
	// tells neither which part was wrong nor the secrets' lengths.
	userOK := sameDigest(user, s.user)
	passwordOK := sameDigest(password, want)
	return userOK && passwordOK
}

func sameDigest(a, b string) bool {
	da, db := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(da[:], db[:]) == 1
}

// unauthorized asks for HTTP Basic credentials, in Spring's words.
func unauthorized(w http.ResponseWriter, r *http.Request) {
	message := "Full authentication is required to access this resource"
	if _, _, ok := r.BasicAuth(); ok {
		message = "Bad credentials"
	}
	w.Header().Set("WWW-Authenticate", realm)
	writeError(w, r, http.StatusUnauthorized, message)
}

// newPassword is a random UUID, as Spring Boot 1.x generates.
func newPassword() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never returns an error
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
