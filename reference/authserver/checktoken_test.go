package authserver

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// TestCheckTokenFields checks every field of spec 2.2, its JSON type and
// its value, one by one.
func TestCheckTokenFields(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read")
	r := checkToken(t, ts, tk.AccessToken)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r.header.Get("Cache-Control") != "no-store" || r.header.Get("Pragma") != "no-cache" {
		t.Errorf("cache headers: %v", r.header)
	}
	m := r.json(t)
	u, _ := ts.store.UserByName("marissa")
	now := float64(time.Now().Unix())
	str := func(k string) string {
		t.Helper()
		v, ok := m[k].(string)
		if !ok {
			t.Errorf("%s: %#v, want a string", k, m[k])
		}
		return v
	}
	num := func(k string) float64 {
		t.Helper()
		v, ok := m[k].(float64)
		if !ok || v != float64(int64(v)) {
			t.Errorf("%s: %#v, want an integer", k, m[k])
		}
		return v
	}
	list := func(k string) []string {
		t.Helper()
		raw, ok := m[k].([]any)
		if !ok {
			t.Errorf("%s: %#v, want an array", k, m[k])
		}
		var out []string
		for _, v := range raw {
			s, _ := v.(string)
			out = append(out, s)
		}
		return out
	}
	checks := []struct {
		field string
		ok    bool
	}{
		{"user_id", str("user_id") == u.ID},
		{"user_name", str("user_name") == "marissa"},
		{"email", str("email") == "marissa@test.org"},
		{"client_id", str("client_id") == "greeting"},
		{"cid", str("cid") == "greeting"},
		{"azp", str("azp") == "greeting"},
		{"exp", num("exp") > now+43000 && num("exp") <= now+43201},
		{"iat", num("iat") <= now+1 && num("iat") > now-60},
		{"auth_time", num("auth_time") <= now+1 && num("auth_time") > now-60},
		{"scope", slices.Equal(list("scope"), []string{"openid", "fortunes.read"})},
		{"aud", slices.Equal(sorted(list("aud")), []string{"fortunes", "greeting", "openid"})},
		{"jti", str("jti") == tk.JTI && len(tk.JTI) == 32},
		{"sub", str("sub") == u.ID},
		{"iss", str("iss") == ts.url+"/oauth/token"},
		{"grant_type", str("grant_type") == "authorization_code"},
		{"zid", str("zid") == "uaa"},
		{"rev_sig", str("rev_sig") != ""},
		{"nonce", str("nonce") == "nonce-0123456789"},
		{"origin", str("origin") == "uaa"},
		{"revocable", m["revocable"] == true},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: %#v", c.field, m[c.field])
		}
	}
	if len(m) != len(checks) {
		t.Errorf("%d fields, want exactly the %d of spec 2.2: %v", len(m), len(checks), m)
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

func TestCheckTokenCaller(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid")
	form := url.Values{"token": {tk.AccessToken}}
	tests := []struct {
		name, basic string
		status      int
		err         string
	}{
		{"no credentials", "", 401, "unauthorized"},
		{"bad secret", "fortune:nope", 401, "unauthorized"},
		{"unknown client", "nobody:x", 401, "unauthorized"},
		{"without authz.resource", "greeting:greeting-secret", 403, "access_denied"},
		{"resource server", "fortune:fortune-secret", 200, ""},
		{"form-encoded credentials", "fortune:fortune%2Dsecret", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, ts, "/check_token", tt.basic, form)
			if r.status != tt.status {
				t.Fatalf("want %d, got %d %s", tt.status, r.status, r.body)
			}
			if tt.err != "" && r.json(t)["error"] != tt.err {
				t.Errorf("error: %s", r.body)
			}
			if tt.status == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	req := mustRequest(t, http.MethodPost, ts.url+"/check_token")
	req.Header.Set("Authorization", "Bearer "+tk.AccessToken)
	if r := send(t, req); r.status != http.StatusUnauthorized {
		t.Errorf("a bearer token is no client authentication: %d", r.status)
	}
}

func TestCheckTokenErrors(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read")
	revoked := userTokens(t, ts, "openid")
	if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {revoked.AccessToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	forged := tk.AccessToken[:len(tk.AccessToken)-4] + "AAAA"
	tests := []struct {
		name string
		form url.Values
		err  string
		desc string
	}{
		{"missing token", url.Values{"x": {"y"}}, "invalid_token", "Token parameter must be set"},
		{"unknown token", url.Values{"token": {"abc"}}, "invalid_token", "Token was not recognised"},
		{"malformed JWT", url.Values{"token": {"a.b.c"}}, "invalid_token", "Token was not recognised"},
		{"forged signature", url.Values{"token": {forged}}, "invalid_token", "Token was not recognised"},
		{"refresh token", url.Values{"token": {tk.RefreshToken}}, "invalid_token", "Token was not recognised"},
		{"id token", url.Values{"token": {tk.IDToken}}, "invalid_token", "Token was not recognised"},
		{"revoked", url.Values{"token": {revoked.AccessToken}}, "invalid_token", "The token has been revoked"},
		{"missing scopes", url.Values{"token": {tk.AccessToken}, "scopes": {"fortunes.read,a,b"}}, "invalid_scope", "Some requested scopes are missing: a,b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, ts, "/check_token", "fortune:fortune-secret", tt.form)
			m := r.json(t)
			if r.status != http.StatusBadRequest || m["error"] != tt.err || m["error_description"] != tt.desc {
				t.Fatalf("want 400 %s %q, got %d %s", tt.err, tt.desc, r.status, r.body)
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Error("no Cache-Control: no-store")
			}
		})
	}
	r := post(t, ts, "/check_token", "fortune:fortune-secret", url.Values{"token": {tk.AccessToken}, "scopes": {"openid, fortunes.read"}})
	if r.status != http.StatusOK {
		t.Fatalf("scopes all present: %d %s", r.status, r.body)
	}
}

func TestCheckTokenExpired(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid")
	ts.tokens.Now = func() time.Time { return time.Now().Add(DefaultAccessTokenTTL + time.Second) }
	r := checkToken(t, ts, tk.AccessToken)
	if r.status != http.StatusBadRequest || r.json(t)["error_description"] != "Token has expired" {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestCheckTokenRevSig: changing the user's password (or e-mail) makes
// earlier tokens fail as revoked.
func TestCheckTokenRevSig(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid")
	u, _ := ts.store.UserByName("marissa")
	changed := *u
	changed.PasswordHash = []byte("$2a$04$changedchangedchangedchangedchangedchangedchangedch")
	// No API changes a password: the record is rewritten in the store's
	// bucket of users.
	if err := ts.store.Update(func(tx kv.Tx) error { return store.PutJSON(tx, "users", u.ID, &changed) }); err != nil {
		t.Fatal(err)
	}
	assertRevoked(t, ts, tk.AccessToken)
}

func TestCheckTokenOfAClientToken(t *testing.T) {
	ts := newTestServer(t)
	r := checkToken(t, ts, adminToken(t, ts))
	m := r.json(t)
	if r.status != http.StatusOK || m["client_id"] != "admin" || m["sub"] != "admin" || m["user_id"] != nil || m["revocable"] != true {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if aud := sorted(toStrings(m["aud"])); !slices.Equal(aud, []string{"admin", "clients", "scim"}) {
		t.Errorf("aud %v", aud)
	}
}

func toStrings(v any) []string {
	raw, _ := v.([]any)
	out := make([]string, 0, len(raw))
	for _, x := range raw {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// check_token's answer is encoded once per token: each token still gets its
// own, and only while it is valid.
func TestCheckTokenAnswersEachTokenItsOwn(t *testing.T) {
	ts := newTestServer(t)
	a, b := userTokens(t, ts, "openid"), userTokens(t, ts, "openid fortunes.read")
	for range 2 {
		for _, tk := range []issued{a, b} {
			r := checkToken(t, ts, tk.AccessToken)
			if r.status != http.StatusOK || r.json(t)["jti"] != tk.JTI {
				t.Fatalf("want the answer of %s: %d %s", tk.JTI, r.status, r.body)
			}
			if again := checkToken(t, ts, tk.AccessToken); again.body != r.body {
				t.Fatalf("two answers for one token:\n%s\n%s", r.body, again.body)
			}
		}
	}
	if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {a.AccessToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	assertRevoked(t, ts, a.AccessToken)
	if r := checkToken(t, ts, b.AccessToken); r.status != http.StatusOK {
		t.Fatalf("the other token: %d %s", r.status, r.body)
	}
}
