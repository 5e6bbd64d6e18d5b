package greeting

import (
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

func TestCheckIDToken(t *testing.T) {
	s, err := New(Options{AuthURL: "http://auth.test"})
	if err != nil {
		t.Fatal(err)
	}
	claims := func(change func(map[string]any)) string {
		c := map[string]any{
			"iss": "http://auth.test/oauth/token", "aud": []string{"greeting"}, "nonce": "n-1",
			"sub": "u-1", "user_name": "marissa", "given_name": "Marissa", "family_name": "Bloggs",
			"exp": time.Now().Add(time.Hour).Unix(),
		}
		change(c)
		return authtest.Forge(t, authtest.Key(), "k", c)
	}
	good, err := s.checkIDToken(t.Context(), claims(func(map[string]any) {}), "n-1")
	if err != nil || good.displayName() != "Marissa Bloggs" {
		t.Fatalf("%v %+v", err, good)
	}
	if c, err := s.checkIDToken(t.Context(), claims(func(c map[string]any) { c["aud"] = "greeting" }), "n-1"); err != nil || c == nil {
		t.Errorf("aud as a string: %v", err)
	}
	tests := []struct {
		name, token, nonce, want string
	}{
		{"missing", "", "n-1", "no ID token"},
		{"not a JWT", "a.b", "n-1", "not a signed JWT"},
		{"another issuer", claims(func(c map[string]any) { c["iss"] = "http://evil.test/oauth/token" }), "n-1", "issued by"},
		{"another audience", claims(func(c map[string]any) { c["aud"] = []string{"other"} }), "n-1", "not for this client"},
		{"another nonce", claims(func(map[string]any) {}), "n-2", "nonce"},
		{"no nonce", claims(func(c map[string]any) { delete(c, "nonce") }), "n-1", "nonce"},
		{"expired", claims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Second).Unix() }), "n-1", "has expired"},
		{"no expiry", claims(func(c map[string]any) { delete(c, "exp") }), "n-1", "no expiry"},
	}
	for _, tt := range tests {
		if _, err := s.checkIDToken(t.Context(), tt.token, tt.nonce); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestIDClaimsWithoutOpenID(t *testing.T) {
	s, _ := New(Options{})
	if c, err := s.idClaimsOf(t.Context(), &tokenResponse{Scope: "fortunes.read"}, "n"); err != nil || c == nil {
		t.Errorf("openid not granted: %v", err)
	}
	if _, err := s.idClaimsOf(t.Context(), &tokenResponse{Scope: "openid fortunes.read"}, "n"); err == nil {
		t.Error("openid granted without an ID token")
	}
}
