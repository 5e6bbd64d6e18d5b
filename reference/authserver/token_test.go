package authserver

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestClientCredentials(t *testing.T) {
	ts := newTestServer(t)
	basic := tokensOf(t, post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}}))
	form := tokensOf(t, post(t, ts, "/oauth/token", "", url.Values{
		"grant_type": {"client_credentials"}, "client_id": {"admin"}, "client_secret": {"adminsecret"},
	}))
	for _, tk := range []issued{basic, form} {
		if tk.Scope != adminScopeList || tk.RefreshToken != "" || tk.IDToken != "" {
			t.Errorf("admin token: %+v", tk)
		}
		c := claimsOf(t, tk.AccessToken)
		if c["sub"] != "admin" || c["grant_type"] != "client_credentials" || c["user_id"] != nil {
			t.Errorf("client token claims: %v", c)
		}
	}
	one := tokensOf(t, post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}, "scope": {"scim.read"}}))
	if one.Scope != "scim.read" {
		t.Errorf("requested scope: %q", one.Scope)
	}
	r := post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}, "scope": {"openid"}})
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_scope" {
		t.Errorf("scope beyond the authorities: %d %s", r.status, r.body)
	}
	r = post(t, ts, "/oauth/token", "greeting:greeting-secret", url.Values{"grant_type": {"client_credentials"}})
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "unauthorized_client" {
		t.Errorf("client without the grant: %d %s", r.status, r.body)
	}
}

func TestTokenEndpointErrors(t *testing.T) {
	ts := newTestServer(t)
	cc := url.Values{"grant_type": {"client_credentials"}}
	tests := []struct {
		name, basic string
		form        url.Values
		status      int
		err         string
	}{
		{"wrong secret", "admin:wrong", cc, 401, "invalid_client"},
		{"unknown client", "nobody:x", cc, 401, "invalid_client"},
		{"wrong form secret", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {"admin"}, "client_secret": {"x"}}, 401, "invalid_client"},
		{"no credentials", "", cc, 401, "invalid_client"},
		{"unsupported grant", "admin:adminsecret", url.Values{"grant_type": {"password"}}, 400, "unsupported_grant_type"},
		{"no grant", "admin:adminsecret", url.Values{"scope": {"x"}}, 400, "invalid_request"},
		{"unknown code", "greeting:greeting-secret", url.Values{"grant_type": {"authorization_code"}, "code": {"nope"}, "redirect_uri": {greetingRedirect}}, 400, "invalid_grant"},
		{"unknown refresh token", "greeting:greeting-secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"nope"}}, 400, "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, ts, "/oauth/token", tt.basic, tt.form)
			if r.status != tt.status || r.json(t)["error"] != tt.err {
				t.Fatalf("want %d %s, got %d %s", tt.status, tt.err, r.status, r.body)
			}
			if tt.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("401 without a Basic challenge: %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}
	if r := send(t, mustRequest(t, http.MethodGet, ts.url+"/oauth/token")); r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET /oauth/token: %d", r.status)
	}
}

func mustRequest(t testing.TB, method, target string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestRefresh: a refresh gives new tokens; reusing the old refresh token is
// refused and revokes everything issued under the grant.
func TestRefresh(t *testing.T) {
	ts := newTestServer(t)
	first := userTokens(t, ts, "openid fortunes.read")
	refresh := func(token string) reply {
		return post(t, ts, "/oauth/token", "", url.Values{
			"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {"greeting"}, "client_secret": {"greeting-secret"},
		})
	}
	second := tokensOf(t, refresh(first.RefreshToken))
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken || second.IDToken == "" {
		t.Fatalf("refresh did not issue new tokens: %+v", second)
	}
	if second.Scope != "openid fortunes.read" || claimsOf(t, second.AccessToken)["grant_type"] != "refresh_token" {
		t.Errorf("refreshed token: %+v %v", second, claimsOf(t, second.AccessToken))
	}
	if r := checkToken(t, ts, second.AccessToken); r.status != http.StatusOK {
		t.Fatalf("refreshed access token: %d %s", r.status, r.body)
	}

	r := refresh(first.RefreshToken)
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_grant" {
		t.Fatalf("reused refresh token: %d %s", r.status, r.body)
	}
	assertRevoked(t, ts, second.AccessToken)
	if r := refresh(second.RefreshToken); r.status != http.StatusBadRequest {
		t.Fatalf("the newest refresh token must be revoked too: %d %s", r.status, r.body)
	}
	r = post(t, ts, "/oauth/token", "fortune:fortune-secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {second.RefreshToken}})
	if r.status != http.StatusBadRequest {
		t.Fatalf("another client's refresh token: %d %s", r.status, r.body)
	}
}

// TestCodeReplay: a code works once; the second exchange is invalid_grant
// and revokes the tokens of the first.
func TestCodeReplay(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	code := codeOf(t, b.approve(authParams("openid fortunes.read"), "marissa", "koala"))
	tk := tokensOf(t, exchange(t, ts, code, nil))
	r := exchange(t, ts, code, nil)
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_grant" {
		t.Fatalf("replayed code: %d %s", r.status, r.body)
	}
	assertRevoked(t, ts, tk.AccessToken)
	r = post(t, ts, "/oauth/token", "", url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}, "client_id": {"greeting"}, "client_secret": {"greeting-secret"},
	})
	if r.status != http.StatusBadRequest {
		t.Fatalf("refresh token of a replayed code: %d %s", r.status, r.body)
	}
}

// TestCodeLifetime: a code exchanged after CodeTTL gets UAA's answer,
// invalid_grant "Authorization code expired: <code>"; one exchanged within
// it works.
func TestCodeLifetime(t *testing.T) {
	const ttl = 300 * time.Millisecond
	ts := newTestServer(t, func(o *Options) { o.CodeTTL = ttl })
	b := newBrowser(t, ts)
	tokensOf(t, exchange(t, ts, codeOf(t, b.approve(authParams("openid"), "marissa", "koala")), nil))
	code := codeOf(t, b.approve(authParams("openid"), "", ""))
	time.Sleep(ttl + 100*time.Millisecond) // the lifetime is what this test is about
	r := exchange(t, ts, code, nil)
	body := r.json(t)
	if r.status != http.StatusBadRequest || body["error"] != "invalid_grant" ||
		body["error_description"] != "Authorization code expired: "+code {
		t.Fatalf("expired code: %d %s", r.status, r.body)
	}
}

func TestCodeOfAnotherClientOrRedirect(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	code := codeOf(t, b.approve(authParams("openid"), "marissa", "koala"))
	r := post(t, ts, "/oauth/token", "fortune:fortune-secret", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {greetingRedirect}})
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_grant" {
		t.Fatalf("code of another client: %d %s", r.status, r.body)
	}
	code = codeOf(t, b.approve(authParams("openid"), "", ""))
	r = exchange(t, ts, code, url.Values{"redirect_uri": {"http://localhost:8100/x"}})
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_grant" {
		t.Fatalf("other redirect_uri: %d %s", r.status, r.body)
	}
}

func assertRevoked(t *testing.T, ts *testServer, token string) {
	t.Helper()
	r := checkToken(t, ts, token)
	if r.status != http.StatusBadRequest || r.json(t)["error_description"] != "The token has been revoked" {
		t.Fatalf("token should be revoked: %d %s", r.status, r.body)
	}
}

func TestTokenLifetimes(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.AccessTokenTTL = 600e9; o.RefreshTokenTTL = 3600e9 })
	tk := userTokens(t, ts, "openid")
	if tk.ExpiresIn > 600 || tk.ExpiresIn < 590 {
		t.Fatalf("expires_in %d, want 600", tk.ExpiresIn)
	}
	c := claimsOf(t, tk.AccessToken)
	if exp, iat := c["exp"].(float64), c["iat"].(float64); exp-iat < 590 || exp-iat > 601 {
		t.Fatalf("exp - iat = %v", exp-iat)
	}
	if !slices.Contains(strings.Fields(tk.Scope), "openid") {
		t.Fatal(tk.Scope)
	}
}

// TestClientTokenValidity: a client's access_token_validity (UAA, seconds)
// sets its tokens' lifetime.
func TestClientTokenValidity(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	body := `{"client_id":"short","client_secret":"s","authorized_grant_types":["authorization_code","refresh_token"],
		"scope":["openid"],"redirect_uri":["http://localhost:8100/"],"access_token_validity":1,"refresh_token_validity":1}`
	if r := api(t, ts, "POST", "/oauth/clients", admin, body); r.status != http.StatusCreated || r.json(t)["access_token_validity"] != 1.0 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	b := newBrowser(t, ts)
	p := authParams("openid")
	p.Set("client_id", "short")
	code := codeOf(t, b.approve(p, "marissa", "koala"))
	tk := tokensOf(t, post(t, ts, "/oauth/token", "short:s", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {greetingRedirect}}))
	if tk.ExpiresIn > 1 {
		t.Fatalf("expires_in %d, want 1", tk.ExpiresIn)
	}
	ts.tokens.Now = func() time.Time { return time.Now().Add(2 * time.Second) }
	if r := checkToken(t, ts, tk.AccessToken); r.json(t)["error_description"] != "Token has expired" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	for _, v := range []string{"-5", "-9223372036854775808", `"x"`} {
		r := api(t, ts, "POST", "/oauth/clients", admin, `{"client_id":"bad","client_secret":"s","authorized_grant_types":["client_credentials"],"access_token_validity":`+v+`}`)
		if r.status != http.StatusBadRequest {
			t.Errorf("validity %s: %d %s", v, r.status, r.body)
		}
	}
}
