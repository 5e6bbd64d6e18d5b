package authserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

func TestUserinfo(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read")
	bearer := func(method, token string) reply {
		req := mustRequest(t, method, ts.url+"/userinfo")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return send(t, req)
	}
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		r := bearer(method, tk.AccessToken)
		m := r.json(t)
		u, _ := ts.store.UserByName("marissa")
		want := map[string]any{
			"sub": u.ID, "user_id": u.ID, "user_name": "marissa", "given_name": "Marissa", "family_name": "Bloggs",
			"name": "Marissa Bloggs", "email": "marissa@test.org", "email_verified": true,
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s %s: %#v, want %#v", method, k, m[k], v)
			}
		}
	}
	if r := bearer(http.MethodGet, ""); r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no token: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	r := bearer(http.MethodGet, "garbage")
	if r.status != http.StatusUnauthorized || !strings.Contains(r.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("bad token: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	noOpenID := userTokens(t, ts, "fortunes.read")
	r = bearer(http.MethodGet, noOpenID.AccessToken)
	if r.status != http.StatusForbidden || r.json(t)["error"] != "insufficient_scope" ||
		!strings.Contains(r.header.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
		t.Errorf("token without openid: %d %s", r.status, r.body)
	}
}

func TestIntrospection(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read")
	introspect := func(token string) map[string]any {
		t.Helper()
		r := post(t, ts, "/introspect", "fortune:fortune-secret", url.Values{"token": {token}})
		if r.status != http.StatusOK {
			t.Fatalf("introspect: %d %s", r.status, r.body)
		}
		return r.json(t)
	}
	m := introspect(tk.AccessToken)
	if m["active"] != true || m["client_id"] != "greeting" || m["scope"] != "openid fortunes.read" || m["username"] != "marissa" {
		t.Errorf("active token: %v", m)
	}
	for _, bad := range []string{"garbage", tk.AccessToken + "x", ""} {
		if m := introspect(bad); m["active"] != false {
			t.Errorf("%q: %v", bad, m)
		}
	}
	if r := post(t, ts, "/introspect", "", url.Values{"token": {tk.AccessToken}}); r.status != http.StatusUnauthorized {
		t.Errorf("introspection without client authentication: %d", r.status)
	}
	post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {tk.AccessToken}})
	if m := introspect(tk.AccessToken); m["active"] != false {
		t.Errorf("revoked token: %v", m)
	}
}

// TestRevocation: revoking a refresh token revokes its grant's access
// tokens; revoking an access token makes check_token refuse it.
func TestRevocation(t *testing.T) {
	ts := newTestServer(t)
	t.Run("refresh token", func(t *testing.T) {
		tk := userTokens(t, ts, "openid")
		r := post(t, ts, "/oauth/revoke", "", url.Values{"token": {tk.RefreshToken}, "token_type_hint": {"refresh_token"},
			"client_id": {"greeting"}, "client_secret": {"greeting-secret"}})
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		assertRevoked(t, ts, tk.AccessToken)
		r = post(t, ts, "/oauth/token", "greeting:greeting-secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}})
		if r.status != http.StatusBadRequest {
			t.Fatalf("revoked refresh token: %d %s", r.status, r.body)
		}
	})
	t.Run("access token", func(t *testing.T) {
		tk := userTokens(t, ts, "openid")
		if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {tk.AccessToken}}); r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		assertRevoked(t, ts, tk.AccessToken)
	})
	t.Run("another client's token", func(t *testing.T) {
		tk := userTokens(t, ts, "openid")
		post(t, ts, "/oauth/revoke", "admin:adminsecret", url.Values{"token": {tk.AccessToken}})
		if r := checkToken(t, ts, tk.AccessToken); r.status != http.StatusOK {
			t.Fatalf("a client revoked another's token: %d %s", r.status, r.body)
		}
	})
	t.Run("errors", func(t *testing.T) {
		if r := post(t, ts, "/oauth/revoke", "greeting:nope", url.Values{"token": {"x"}}); r.status != http.StatusUnauthorized {
			t.Errorf("bad client: %d", r.status)
		}
		if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {"unknown"}}); r.status != http.StatusOK {
			t.Errorf("unknown token (RFC 7009: 200): %d", r.status)
		}
	})
}

func TestDiscovery(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/.well-known/openid-configuration", "/oauth/token/.well-known/openid-configuration"} {
		r := newBrowser(t, ts).get(path)
		var d discoveryDocument
		if err := json.Unmarshal([]byte(r.body), &d); err != nil || r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		if d.Issuer != ts.url+"/oauth/token" || d.TokenEndpoint != ts.url+"/oauth/token" || d.JWKSURI != ts.url+"/token_keys" ||
			d.AuthorizationEndpoint != ts.url+"/oauth/authorize" || d.UserinfoEndpoint != ts.url+"/userinfo" ||
			d.IntrospectionEndpoint != ts.url+"/introspect" || d.RevocationEndpoint != ts.url+"/oauth/revoke" {
			t.Errorf("%s endpoints: %+v", path, d)
		}
		if strings.Join(d.CodeChallengeMethodsSupported, " ") != "S256" ||
			strings.Join(d.TokenEndpointAuthMethodsSupported, " ") != "client_secret_basic client_secret_post" ||
			!strings.Contains(strings.Join(d.ScopesSupported, " "), "fortunes.read") || len(d.ClaimsSupported) == 0 ||
			len(d.GrantTypesSupported) != 3 || len(d.ResponseTypesSupported) != 1 {
			t.Errorf("%s: %+v", path, d)
		}
	}
}

// TestJWKSVerifiesTokens verifies an access token and an ID token with the
// key from /token_keys, as a resource server would.
func TestJWKSVerifiesTokens(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read")
	r := newBrowser(t, ts).get("/token_keys")
	var set jose.JSONWebKeySet
	if err := json.Unmarshal([]byte(r.body), &set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("JWKS: %s", r.body)
	}
	var raw struct {
		Keys []map[string]string `json:"keys"`
	}
	_ = json.Unmarshal([]byte(r.body), &raw)
	k := raw.Keys[0]
	if k["alg"] != "RS256" || k["kty"] != "RSA" || k["use"] != "sig" || k["kid"] == "" || !strings.HasPrefix(k["value"], "-----BEGIN PUBLIC KEY-----") {
		t.Errorf("key fields: %v", k)
	}
	for _, token := range []string{tk.AccessToken, tk.IDToken} {
		parsed, err := jwt.ParseSigned(token)
		if err != nil {
			t.Fatal(err)
		}
		if parsed.Headers[0].KeyID != k["kid"] || parsed.Headers[0].Algorithm != "RS256" {
			t.Errorf("header: %+v", parsed.Headers[0])
		}
		keys := set.Key(parsed.Headers[0].KeyID)
		if len(keys) != 1 {
			t.Fatal("no key for the kid")
		}
		var c map[string]any
		if err := parsed.Claims(keys[0].Key, &c); err != nil {
			t.Fatalf("signature does not verify: %v", err)
		}
	}
	if r := newBrowser(t, ts).get("/token_key"); !strings.Contains(r.body, k["kid"]) {
		t.Errorf("/token_key: %s", r.body)
	}
}

func TestHealthAndLimits(t *testing.T) {
	ts := newTestServer(t)
	r := newBrowser(t, ts).get("/healthz")
	if r.status != http.StatusOK || r.body != "ok" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("healthz: %d %q %q", r.status, r.body, r.header.Get("Content-Type"))
	}
	big := url.Values{"token": {strings.Repeat("a", httpio.MaxBodyBytes)}}
	for _, path := range []string{"/check_token", "/oauth/token", "/login.do", "/Users"} {
		if r := post(t, ts, path, "fortune:fortune-secret", big); r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s with %d bytes: %d", path, len(big.Encode()), r.status)
		}
	}
	// A body without a length (chunked) is cut too.
	req, _ := http.NewRequest(http.MethodPost, ts.url+"/check_token", strings.NewReader(big.Encode()))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("fortune", "fortune-secret")
	if r := send(t, req); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked: %d", r.status)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, opts := range []Options{
		{},
		{URL: "localhost:9000"},
		{URL: "ftp://localhost"},
		{URL: "http://localhost:9000/uaa"},
		{URL: "http://localhost:9000?x=1"},
		{URL: "http://localhost:9000", AccessTokenTTL: -1},
		{URL: "http://localhost:9000", HashCost: 99},
		{URL: "http://localhost:9000", AdminClientID: "a b"},
		{URL: "http://localhost:9000", AdminClientSecret: strings.Repeat("s", 73)},
	} {
		opts.SigningKey = testKey()
		if _, err := New(opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
}
