package fortune

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// TestJWTValidation: the signature, exp, iss and scope are checked locally,
// and no request asks the authorization server about the token.
func TestJWTValidation(t *testing.T) {
	f := start(t, nil, Options{Validation: ValidateJWT})
	user := f.as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
	for range 5 {
		wantFortune(t, f.get(t, "/deep/path", user.AccessToken))
	}
	if c, k := f.as.Calls("/check_token"), f.as.Calls("/token_keys"); c != 0 || k != 1 {
		t.Fatalf("%d calls to check_token and %d to token_keys; want 0 and 1", c, k)
	}

	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	claims := authtest.Claims(t, user.AccessToken)
	kid := authtest.Kid(t, user.AccessToken)
	// A server with the same key but another URL: a good signature, another iss.
	elsewhere := authtest.Start(t)
	foreign := elsewhere.ResourceClient(t, "reader", 0, RequiredScope)
	f.as.CreateUser(t, "outsider")
	parts := strings.Split(user.AccessToken, ".")

	tests := []struct {
		name, token string
		status      int
		code, desc  string
	}{
		{"bad signature", authtest.Forge(t, other, kid, claims), 401, "invalid_token", "signature"},
		{"tampered payload", parts[0] + "." + parts[1][:len(parts[1])-2] + "AA." + parts[2], 401, "invalid_token", "not recognised"},
		{"no kid", authtest.Forge(t, authtest.Key(), "", claims), 401, "invalid_token", "named key"},
		{"unsigned", parts[0] + "." + parts[1] + ".", 401, "invalid_token", "not recognised"},
		{"not a JWT", "not.a-token", 401, "invalid_token", "not a signed JWT"},
		{"another issuer", foreign, 401, "invalid_token", "another issuer"},
		{"refresh token", user.RefreshToken, 401, "invalid_token", "not a signed JWT"},
		{"user outside fortunes.read", f.as.UserTokens(t, "outsider", "pw", "openid fortunes.read").AccessToken, 403, "insufficient_scope", "Insufficient scope"},
		{"client without fortunes.read", f.as.ClientToken(t, "admin", "adminsecret"), 403, "insufficient_scope", "Insufficient scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantRefusal(t, f.get(t, "/", tt.token), tt.status, tt.code, tt.desc)
		})
	}
	if c := f.as.Calls("/check_token"); c != 0 {
		t.Errorf("%d calls to check_token", c)
	}
}

func TestJWTExpired(t *testing.T) {
	f := start(t, nil, Options{Validation: ValidateJWT})
	token := f.as.ResourceClient(t, "reader", 0, RequiredScope)
	wantFortune(t, f.get(t, "/", token))
	f.clock.advance(time.Until(authtest.Expiry(t, token)))
	wantRefusal(t, f.get(t, "/", token), 401, "invalid_token", "Token has expired")
}

// TestJWTIgnoresRevocation pins the documented trade-off of local
// validation: a revoked token is accepted until it expires.
func TestJWTIgnoresRevocation(t *testing.T) {
	f := start(t, nil, Options{Validation: ValidateJWT})
	tk := f.as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
	f.as.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, tk.AccessToken)
	wantFortune(t, f.get(t, "/", tk.AccessToken))
}

// TestJWTUnknownKidRefetchIsBounded: tokens with made-up kids cause at most
// one fetch of token_keys per interval.
func TestJWTUnknownKidRefetchIsBounded(t *testing.T) {
	f := start(t, nil, Options{Validation: ValidateJWT})
	good := f.as.ResourceClient(t, "reader", 0, RequiredScope)
	claims := authtest.Claims(t, good)
	forged := func(kid string) string { return authtest.Forge(t, authtest.Key(), kid, claims) }

	for i := range 20 {
		wantRefusal(t, f.get(t, "/", forged("made-up-"+string(rune('a'+i)))), 401, "invalid_token", "signing key is unknown")
	}
	if k := f.as.Calls("/token_keys"); k != 1 {
		t.Fatalf("%d fetches of token_keys for 20 unknown kids, want 1", k)
	}
	wantFortune(t, f.get(t, "/", good))

	f.clock.advance(DefaultKeyRefetchInterval)
	wantRefusal(t, f.get(t, "/", forged("later")), 401, "invalid_token", "signing key is unknown")
	wantRefusal(t, f.get(t, "/", forged("later-still")), 401, "invalid_token", "signing key is unknown")
	if k := f.as.Calls("/token_keys"); k != 2 {
		t.Fatalf("%d fetches of token_keys after the interval, want 2", k)
	}
}

// TestJWTKeyRotation: a token signed by a key the service has not seen
// yet is refused until the next fetch is due, then verified.
func TestJWTKeyRotation(t *testing.T) {
	rotated, _ := rsa.GenerateKey(rand.Reader, 2048)
	as := authtest.Start(t, func(o *authserver.Options) { o.SigningKey = rotated })
	f := start(t, as, Options{Validation: ValidateJWT})
	keys := f.srv.validator.(*cachedValidator).next.(*jwtValidator).keys
	keys.mu.Lock() // as if the set had been fetched before the rotation
	keys.keys.Store(&map[string]*rsa.PublicKey{"retired": &authtest.Key().PublicKey})
	keys.lastFetch, keys.lastOK = f.clock.now(), true
	keys.mu.Unlock()

	token := as.ResourceClient(t, "reader", 0, RequiredScope)
	wantRefusal(t, f.get(t, "/", token), 401, "invalid_token", "signing key is unknown")
	f.clock.advance(DefaultKeyRefetchInterval)
	wantFortune(t, f.get(t, "/", token))
	if _, ok := keys.lookup("retired"); ok {
		t.Error("a key the server no longer lists is still trusted")
	}
}

// TestJWTKeysUnavailable: without keys the answer is 503, and a failing
// server is asked again after a second, not on every request.
func TestJWTKeysUnavailable(t *testing.T) {
	f := start(t, nil, Options{Validation: ValidateJWT})
	token := f.as.ResourceClient(t, "reader", 0, RequiredScope)
	f.as.FailWith(http.StatusInternalServerError)
	for range 3 {
		if r := f.get(t, "/", token); r.Status != http.StatusServiceUnavailable {
			t.Fatalf("keys unavailable: %d %s", r.Status, r.Body)
		}
	}
	if k := f.as.Calls("/token_keys"); k != 1 {
		t.Fatalf("%d fetches while failing, want 1", k)
	}
	if !strings.Contains(f.logs.String(), "status 500") {
		t.Errorf("log:\n%s", f.logs)
	}
	f.as.FailWith(0)
	f.clock.advance(retryAfterFailure)
	wantFortune(t, f.get(t, "/", token))
	if k := f.as.Calls("/token_keys"); k != 2 {
		t.Fatalf("%d fetches, want 2", k)
	}
}
