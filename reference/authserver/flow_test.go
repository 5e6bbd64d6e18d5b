package authserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver/pages"
)

// TestAuthorizationCodeFlow walks the greeting client's flow step by step,
// as a browser does: redirect to sign in, the form, the consent page, the
// code, and the exchange with form client authentication and PKCE.
func TestAuthorizationCodeFlow(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	verifier, challenge := pkcePair()
	params := authParams("openid fortunes.read")
	params.Set("code_challenge", challenge)
	params.Set("code_challenge_method", "S256")

	r := b.get(authorizeURL(params))
	if r.status != http.StatusFound || r.location(t).Path != "/login" {
		t.Fatalf("anonymous authorize: want 302 to /login, got %d %v", r.status, r.header.Get("Location"))
	}
	login := b.get("/login")
	for _, want := range []string{`name="username"`, `name="password"`, `type="password"`, `action="/login.do"`, `<label for="username">`} {
		if !strings.Contains(login.body, want) {
			t.Errorf("sign-in page lacks %s", want)
		}
	}
	r = b.post("/login.do", url.Values{"username": {"marissa"}, "password": {"koala"}, csrfField: {csrfOf(t, login.body)}})
	if r.status != http.StatusFound || !strings.HasPrefix(r.header.Get("Location"), "/oauth/authorize?") {
		t.Fatalf("sign-in: want 302 back to the authorization request, got %d %q", r.status, r.header.Get("Location"))
	}
	consent := b.get(r.header.Get("Location"))
	checkConsentPage(t, consent)

	r = b.post("/oauth/authorize", consentForm(t, consent.body, true))
	if r.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	back := r.location(t)
	if got := back.Scheme + "://" + back.Host + back.Path; got != greetingRedirect {
		t.Fatalf("redirected to %s, want the greeting client", got)
	}
	if back.Query().Get("state") != "state-0123456789" {
		t.Errorf("state not carried: %s", back)
	}
	tk := tokensOf(t, exchange(t, ts, codeOf(t, back), url.Values{"code_verifier": {verifier}}))
	checkTokenResponse(t, ts, tk)
}

func checkConsentPage(t *testing.T, consent reply) {
	t.Helper()
	if consent.status != http.StatusOK {
		t.Fatalf("consent page: %d %s", consent.status, consent.body)
	}
	for _, want := range []string{
		"<h1>Application Authorization</h1>",
		`action="/oauth/authorize"`,
		`name="scope.0" value="scope.openid"`, "Access your profile",
		`name="scope.1" value="scope.fortunes.read"`, "Read fortunes",
		`name="user_oauth_approval" value="true"`, `name="user_oauth_approval" value="false"`,
		`name="X-Uaa-Csrf"`,
	} {
		if !strings.Contains(consent.body, want) {
			t.Errorf("consent page lacks %s", want)
		}
	}
	if consent.header.Get("X-Frame-Options") != "DENY" {
		t.Error("consent page may be framed")
	}
}

func checkTokenResponse(t *testing.T, ts *testServer, tk issued) {
	t.Helper()
	if tk.TokenType != "bearer" || tk.AccessToken == "" || tk.RefreshToken == "" || tk.IDToken == "" {
		t.Fatalf("token response incomplete: %+v", tk)
	}
	if tk.Scope != "openid fortunes.read" {
		t.Errorf("scope %q, want space-separated openid fortunes.read", tk.Scope)
	}
	if tk.ExpiresIn < 43190 || tk.ExpiresIn > 43200 {
		t.Errorf("expires_in %d, want 43200", tk.ExpiresIn)
	}
	claims := claimsOf(t, tk.AccessToken)
	if claims["jti"] != tk.JTI || tk.JTI == "" {
		t.Errorf("jti %q, token's %v", tk.JTI, claims["jti"])
	}
	if claims["nonce"] != "nonce-0123456789" {
		t.Errorf("access token nonce %v", claims["nonce"])
	}
	id := claimsOf(t, tk.IDToken)
	if id["nonce"] != "nonce-0123456789" || id["iss"] != ts.issuer || id["sub"] != claims["user_id"] {
		t.Errorf("id token claims: %v", id)
	}
	if aud, _ := id["aud"].([]any); len(aud) == 0 || aud[0] != "greeting" {
		t.Errorf("id token aud %v", id["aud"])
	}
}

// TestAccessTokenClaims checks the JWT's claims and their JSON types.
func TestAccessTokenClaims(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read")
	c := claimsOf(t, tk.AccessToken)
	for _, k := range []string{"client_id", "cid", "azp", "user_id", "user_name", "email", "sub", "iss", "jti", "grant_type", "zid", "rev_sig", "origin", "nonce"} {
		if _, ok := c[k].(string); !ok {
			t.Errorf("claim %s: %#v, want a string", k, c[k])
		}
	}
	for _, k := range []string{"exp", "iat", "auth_time"} {
		if _, ok := c[k].(float64); !ok {
			t.Errorf("claim %s: %#v, want a number", k, c[k])
		}
	}
	for _, k := range []string{"scope", "aud"} {
		if _, ok := c[k].([]any); !ok {
			t.Errorf("claim %s: %#v, want an array", k, c[k])
		}
	}
	if c["iss"] != ts.url+"/oauth/token" || c["user_name"] != "marissa" || c["email"] != "marissa@test.org" ||
		c["grant_type"] != "authorization_code" || c["origin"] != "uaa" || c["zid"] != "uaa" || c["sub"] != c["user_id"] {
		t.Errorf("claims: %v", c)
	}
}

func TestPKCE(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	b.signIn("marissa", "koala")
	_, challenge := pkcePair()

	t.Run("wrong verifier", func(t *testing.T) {
		p := authParams("openid")
		p.Set("code_challenge", challenge)
		p.Set("code_challenge_method", "S256")
		code := codeOf(t, b.approve(p, "", ""))
		wrong, _ := pkcePair()
		r := exchange(t, ts, code, url.Values{"code_verifier": {wrong}})
		if r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_grant" {
			t.Fatalf("wrong verifier: %d %s", r.status, r.body)
		}
	})
	t.Run("plain refused", func(t *testing.T) {
		p := authParams("openid")
		p.Set("code_challenge", challenge)
		p.Set("code_challenge_method", "plain")
		r := b.get(authorizeURL(p))
		if q := r.location(t).Query(); q.Get("error") != "invalid_request" {
			t.Fatalf("plain: %v", r.location(t))
		}
	})
	t.Run("required of public clients", func(t *testing.T) {
		admin := adminToken(t, ts)
		body := `{"client_id":"spa","authorized_grant_types":["authorization_code"],"scope":["openid"],"redirect_uri":["http://localhost:8100/"]}`
		if r := api(t, ts, "POST", "/oauth/clients", admin, body); r.status != http.StatusCreated {
			t.Fatalf("create public client: %d %s", r.status, r.body)
		}
		p := authParams("openid")
		p.Set("client_id", "spa")
		r := b.get(authorizeURL(p))
		if q := r.location(t).Query(); q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), "code_challenge") {
			t.Fatalf("public client without PKCE: %v", r.location(t))
		}
		verifier, challenge := pkcePair()
		p.Set("code_challenge", challenge)
		p.Set("code_challenge_method", "S256")
		code := codeOf(t, b.approve(p, "", ""))
		r = post(t, ts, "/oauth/token", "", url.Values{
			"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {greetingRedirect},
			"client_id": {"spa"}, "code_verifier": {verifier},
		})
		if tk := tokensOf(t, r); tk.AccessToken == "" {
			t.Fatal("no access token for the public client")
		}
	})
}

// TestConsentIsRemembered: a second authorization does not ask again, a
// new scope does.
func TestConsentIsRemembered(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	codeOf(t, b.approve(authParams("openid"), "marissa", "koala"))

	r := b.get(authorizeURL(authParams("openid")))
	if r.status != http.StatusSeeOther {
		t.Fatalf("second authorization: want a redirect with a code, got %d", r.status)
	}
	codeOf(t, r.location(t))

	r = b.get(authorizeURL(authParams("openid fortunes.read")))
	if r.status != http.StatusOK || !strings.Contains(r.body, "Application Authorization") {
		t.Fatalf("a new scope must ask again: %d", r.status)
	}
	p := authParams("openid")
	p.Set("prompt", "consent")
	if r := b.get(authorizeURL(p)); r.status != http.StatusOK {
		t.Fatalf("prompt=consent must ask again: %d", r.status)
	}
}

func TestConsentDenied(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	b.signIn("marissa", "koala")
	page := b.get(authorizeURL(authParams("openid fortunes.read")))
	r := b.post("/oauth/authorize", consentForm(t, page.body, false))
	q := r.location(t).Query()
	if r.status != http.StatusSeeOther || q.Get("error") != "access_denied" || q.Get("state") != "state-0123456789" || q.Get("code") != "" {
		t.Fatalf("deny: %d %v", r.status, r.location(t))
	}
	// The form is good once.
	if r := b.post("/oauth/authorize", consentForm(t, page.body, true)); r.status != http.StatusForbidden {
		t.Fatalf("replayed consent form: %d", r.status)
	}
}

// TestConsentPartial: only the checked scopes are granted.
func TestConsentPartial(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	b.signIn("marissa", "koala")
	page := b.get(authorizeURL(authParams("openid fortunes.read")))
	form := consentForm(t, page.body, true)
	form.Del("scope.1") // fortunes.read unchecked
	r := b.post("/oauth/authorize", form)
	tk := tokensOf(t, exchange(t, ts, codeOf(t, r.location(t)), nil))
	if tk.Scope != "openid" {
		t.Fatalf("scope %q, want openid only", tk.Scope)
	}
}

func TestAutoApprove(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	body := `{"client_id":"auto","client_secret":"s","authorized_grant_types":["authorization_code"],"scope":["openid","fortunes.read"],"redirect_uri":["http://localhost:8100/"],"autoapprove":true}`
	if r := api(t, ts, "POST", "/oauth/clients", admin, body); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	b := newBrowser(t, ts)
	b.signIn("marissa", "koala")
	p := authParams("openid fortunes.read")
	p.Set("client_id", "auto")
	if r := b.get(authorizeURL(p)); r.status != http.StatusSeeOther {
		t.Fatalf("auto-approved client was asked for consent: %d", r.status)
	}
}

// TestScopesOfTheUser: a scope the user is not a member of is dropped; a
// scope the client may not request is an error for the client.
func TestScopesOfTheUser(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	body := `{"userName":"joe","password":"pw","emails":[{"value":"joe@test.org","primary":true}]}`
	if r := api(t, ts, "POST", "/Users", admin, body); r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	b := newBrowser(t, ts)
	code := codeOf(t, b.approve(authParams("openid fortunes.read"), "joe", "pw"))
	tk := tokensOf(t, exchange(t, ts, code, nil))
	if tk.Scope != "openid" {
		t.Errorf("joe is no member of fortunes.read; scope %q", tk.Scope)
	}
	r := b.get(authorizeURL(authParams("openid scim.write")))
	if q := r.location(t).Query(); q.Get("error") != "invalid_scope" || q.Get("state") == "" {
		t.Fatalf("scope the client may not request: %v", r.location(t))
	}
	r = b.get(authorizeURL(authParams("fortunes.read")))
	if q := r.location(t).Query(); q.Get("error") != "invalid_scope" {
		t.Fatalf("no grantable scope: %v", r.location(t))
	}
}

func TestNoScopeRequestsTheClientScopes(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	p := authParams("")
	p.Del("scope")
	tk := tokensOf(t, exchange(t, ts, codeOf(t, b.approve(p, "marissa", "koala")), nil))
	if tk.Scope != "openid fortunes.read" {
		t.Fatalf("scope %q", tk.Scope)
	}
}

func TestSignIn(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	r := b.signIn("marissa", "wrong")
	if r.status != http.StatusUnauthorized || !strings.Contains(r.body, badCredentials) {
		t.Fatalf("wrong password: %d", r.status)
	}
	if r := b.signIn("nobody", "koala"); r.status != http.StatusUnauthorized {
		t.Fatalf("unknown user: %d", r.status)
	}
	r = b.post("/login.do", url.Values{"username": {"marissa"}, "password": {"koala"}, csrfField: {"forged"}})
	if r.status != http.StatusForbidden {
		t.Fatalf("forged CSRF token: %d", r.status)
	}
	r = b.signIn("marissa", "koala")
	if r.status != http.StatusFound || r.header.Get("Location") != "/" {
		t.Fatalf("sign-in without a pending request: %d %q", r.status, r.header.Get("Location"))
	}
	if home := b.get("/"); !strings.Contains(home.body, "signed in as <strong>marissa</strong>") {
		t.Fatalf("home page: %s", home.body)
	}
	b.get("/logout.do")
	if home := b.get("/"); strings.Contains(home.body, "signed in as") {
		t.Fatal("still signed in after sign-out")
	}
}

func TestSessionCookie(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	page := b.get("/login")
	r := b.post("/login.do", url.Values{"username": {"marissa"}, "password": {"koala"}, csrfField: {csrfOf(t, page.body)}})
	var c *http.Cookie
	for _, k := range (&http.Response{Header: r.header}).Cookies() {
		if k.Name == pages.CookieName {
			c = k
		}
	}
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
		t.Fatalf("session cookie: %+v", c)
	}
	if first := (&http.Response{Header: page.header}).Cookies(); len(first) == 0 || first[0].Value == c.Value {
		t.Fatal("the session id must change at sign-in")
	}
}

func TestPromptNone(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	p := authParams("openid")
	p.Set("prompt", "none")
	if q := b.get(authorizeURL(p)).location(t).Query(); q.Get("error") != "login_required" {
		t.Fatalf("prompt=none, anonymous: %v", q)
	}
	b.signIn("marissa", "koala")
	if q := b.get(authorizeURL(p)).location(t).Query(); q.Get("error") != "consent_required" {
		t.Fatalf("prompt=none, no consent yet: %v", q)
	}
}
