package authserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzTokenEndpoints sends arbitrary form bodies and token strings to the
// endpoints that parse them: nothing may panic or answer 5xx.
func FuzzTokenEndpoints(f *testing.F) {
	ts := newTestServer(f)
	tk := userTokens(f, ts, "openid fortunes.read")
	for _, seed := range []struct{ body, token string }{
		{"token=" + tk.AccessToken, tk.AccessToken},
		{"token=" + tk.RefreshToken + "&scopes=a,b", tk.RefreshToken},
		{"grant_type=refresh_token&refresh_token=" + tk.RefreshToken, tk.IDToken},
		{"grant_type=authorization_code&code=x&redirect_uri=%zz", "a.b.c"},
		{"grant_type=client_credentials&scope=%00", "eyJhbGciOiJub25lIn0.e30."},
		{"token=%ZZ&token_type_hint=refresh_token", "Bearer"},
		{"", ""},
	} {
		f.Add(seed.body, seed.token)
	}
	f.Fuzz(func(t *testing.T, body, token string) {
		for _, path := range []string{"/check_token", "/oauth/token", "/introspect", "/oauth/revoke"} {
			req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.SetBasicAuth("fortune", "fortune-secret")
			serveNo5xx(t, ts, req)
		}
		req := httptest.NewRequest(http.MethodPost, "/check_token", strings.NewReader(url.Values{"token": {token}, "scopes": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("fortune", "fortune-secret")
		serveNo5xx(t, ts, req)
		req = httptest.NewRequest(http.MethodGet, "/userinfo", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		serveNo5xx(t, ts, req)
	})
}

func serveNo5xx(t *testing.T, ts *testServer, req *http.Request) {
	t.Helper()
	rec := httptest.NewRecorder()
	ts.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, rec.Code, rec.Body)
	}
}
