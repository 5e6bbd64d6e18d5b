package greeting

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

func TestRedirectToTheAuthorizationServer(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	r := b.Get(f.url + "/")
	if r.Status != http.StatusFound {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	loc := r.Location(t)
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != f.as.URL+"/oauth/authorize" {
		t.Fatalf("redirected to %s", got)
	}
	q := loc.Query()
	want := map[string]string{
		"response_type": "code", "client_id": "greeting", "redirect_uri": f.url + "/",
		"scope": "openid fortunes.read", "code_challenge_method": "S256",
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	for _, k := range []string{"state", "nonce", "code_challenge"} {
		if len(q.Get(k)) < 26 {
			t.Errorf("%s = %q: want a long random value", k, q.Get(k))
		}
	}
	sess := f.session(t, b)
	sess.mu.Lock()
	p := sess.pending
	sess.mu.Unlock()
	if p == nil || p.state != q.Get("state") || p.nonce != q.Get("nonce") || s256(p.verifier) != q.Get("code_challenge") {
		t.Errorf("the session does not hold this request's state, nonce and verifier: %+v", p)
	}
	checkCookie(t, r)

	again := b.Get(f.url + "/").Location(t).Query()
	other := authtest.NewBrowser(t).Get(f.url + "/").Location(t).Query()
	if again.Get("state") == q.Get("state") || other.Get("state") == q.Get("state") || other.Get("nonce") == q.Get("nonce") {
		t.Error("state and nonce must be fresh for every request")
	}
}

func checkCookie(t *testing.T, r authtest.Reply) {
	t.Helper()
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == cookieName {
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure || len(c.Value) < 40 {
				t.Errorf("session cookie %+v", c)
			}
			return
		}
	}
	t.Error("no session cookie")
}

// TestFlow walks the whole flow with a cookie jar against the real
// authorization server and fortune service.
func TestFlow(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)

	r := b.Get(f.url + "/")
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("page: %d %s", r.Status, r.Body)
	}
	for _, want := range []string{
		"<h1>Your fortune</h1>", `<blockquote class="fortune">`, "Signed in as <strong>Marissa Bloggs</strong>",
		`<form method="post" action="/logout">`, `name="csrf_token"`, `<button type="submit">Sign out</button>`, `lang="en"`,
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("page lacks %s:\n%s", want, r.Body)
		}
	}
	if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("page headers: %v", r.Header)
	}

	r, m := f.page(t, b)
	if r.Status != http.StatusOK || m["user"] != "Marissa Bloggs" || m["fortune"] == "" || len(m) != 2 {
		t.Fatalf("JSON page: %d %s", r.Status, r.Body)
	}
	if got := f.as.Calls("/oauth/token"); got != 1 {
		t.Errorf("%d token requests, want 1 (the code exchange)", got)
	}
	if got := f.fortune.calls.Load(); got != 2 {
		t.Errorf("%d calls to the fortune service, want one per page (2)", got)
	}
	if !strings.HasPrefix(f.fortune.lastToken(), "Bearer ey") {
		t.Errorf("the fortune service got %q", f.fortune.lastToken())
	}
}

// TestSessionIDChangesAtSignIn: the session id before sign-in is not the
// signed-in one (no session fixation).
func TestSessionIDChangesAtSignIn(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	first := b.Get(f.url + "/")
	r := b.Get(b.Authorize(first.Location(t).String(), authtest.User, authtest.Password, true).String())
	var anonymous, signed string
	for _, c := range (&http.Response{Header: first.Header}).Cookies() {
		anonymous = c.Value
	}
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		signed = c.Value
	}
	if anonymous == "" || signed == "" || anonymous == signed {
		t.Fatalf("session ids %q then %q", anonymous, signed)
	}
}

// TestCodeIsNotReplayed: the way back works once; a reload of it makes no
// token request.
func TestCodeIsNotReplayed(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	back := b.Authorize(b.Get(f.url+"/").Location(t).String(), authtest.User, authtest.Password, true)
	if r := b.Get(back.String()); r.Status != http.StatusFound {
		t.Fatalf("way back: %d", r.Status)
	}
	if r := b.Get(back.String()); r.Status != http.StatusBadRequest {
		t.Fatalf("the way back again: %d", r.Status)
	}
	if got := f.as.Calls("/oauth/token"); got != 1 {
		t.Fatalf("%d token requests, want 1", got)
	}
}

func TestTamperedState(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	back := b.Authorize(b.Get(f.url+"/").Location(t).String(), authtest.User, authtest.Password, true)
	q := back.Query()
	genuine := q.Get("state")
	for _, state := range []string{"tampered-0123456789", "", genuine + "x"} {
		tampered := *back
		q.Set("state", state)
		tampered.RawQuery = q.Encode()
		r := b.Get(tampered.String())
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "Sign-in not completed") || !strings.Contains(r.Body, `href="/"`) {
			t.Fatalf("state %q: %d %s", state, r.Status, r.Body)
		}
		j := b.Get(tampered.String(), "application/json")
		if j.Status != http.StatusBadRequest || j.JSON(t)["error"] == "" {
			t.Fatalf("state %q as JSON: %d %s", state, j.Status, j.Body)
		}
	}
	if r := authtest.NewBrowser(t).Get(back.String()); r.Status != http.StatusBadRequest {
		t.Fatalf("the way back in another browser: %d", r.Status)
	}
	if got := f.as.Calls("/oauth/token"); got != 0 {
		t.Fatalf("%d token requests for forged callbacks, want none", got)
	}
	// The forgeries did not cancel the user's own sign-in.
	if r := b.Get(back.String()); r.Status != http.StatusFound {
		t.Fatalf("the genuine way back: %d %s", r.Status, r.Body)
	}
}

// TestWayBackWithoutItsSignIn: an error sent back with another state is not the user's (400, and no word of a
// denial), and a way back with the state but neither a code nor an error is malformed (400); neither makes a
// token request.
func TestWayBackWithoutItsSignIn(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	back := b.Authorize(b.Get(f.url+"/").Location(t).String(), authtest.User, authtest.Password, true)
	forged := f.url + "/?" + url.Values{"error": {"access_denied"}, "state": {"forged-0123456789"}}.Encode()
	if r := b.Get(forged); r.Status != http.StatusBadRequest || strings.Contains(r.Body, "denied") {
		t.Fatalf("an error with another state: %d %s", r.Status, r.Body)
	}
	if r := b.Get(f.url + "/?" + url.Values{"state": {back.Query().Get("state")}}.Encode()); r.Status != http.StatusBadRequest ||
		!strings.Contains(r.Body, "no code") {
		t.Fatalf("the state alone: %d %s", r.Status, r.Body)
	}
	if got := f.as.Calls("/oauth/token"); got != 0 {
		t.Fatalf("%d token requests, want none", got)
	}
}

func TestDeniedConsent(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	back := b.Authorize(b.Get(f.url+"/").Location(t).String(), authtest.User, authtest.Password, false)
	if back.Query().Get("error") != "access_denied" {
		t.Fatalf("the authorization server sent %s", back)
	}
	r := b.Get(back.String())
	if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "<h1>Access denied</h1>") ||
		!strings.Contains(r.Body, "You denied") || !strings.Contains(r.Body, `<a href="/">Try again</a>`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if f.as.Calls("/oauth/token") != 0 {
		t.Error("a token request after a denial")
	}
	// Trying again asks again.
	again := b.Get(f.url + "/")
	if again.Status != http.StatusFound || !strings.Contains(again.Header.Get("Location"), "/oauth/authorize?") {
		t.Fatalf("try again: %d %v", again.Status, again.Header.Get("Location"))
	}
}

func TestDeniedConsentAsJSON(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	back := b.Authorize(b.Get(f.url+"/").Location(t).String(), authtest.User, authtest.Password, false)
	r := b.Get(back.String(), "application/json")
	if m := r.JSON(t); r.Status != http.StatusForbidden || !strings.Contains(m["error"].(string), "denied") || len(m) != 1 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestAuthorizationServerError: an error other than a denial is a 502 page.
func TestAuthorizationServerError(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	q := b.Get(f.url + "/").Location(t).Query()
	r := b.Get(f.url + "/?" + url.Values{"error": {"server_error"}, "state": {q.Get("state")}}.Encode())
	if r.Status != http.StatusBadGateway || !strings.Contains(r.Body, "server_error") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

func TestLogout(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)
	page := b.Get(f.url + "/")
	csrf := csrfOf(t, page.Body)
	refresh := f.tokens(t, b).refresh

	for _, form := range []url.Values{{}, {csrfField: {"forged"}}} {
		if r := b.Post(f.url+"/logout", form); r.Status != http.StatusForbidden {
			t.Fatalf("sign-out with %v: %d", form, r.Status)
		}
	}
	if r := b.Get(f.url + "/"); r.Status != http.StatusOK {
		t.Fatalf("still signed in after refused sign-outs: %d", r.Status)
	}
	r := b.Post(f.url+"/logout", url.Values{csrfField: {csrf}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/" {
		t.Fatalf("sign-out: %d %v", r.Status, r.Header)
	}
	if r := b.Get(f.url + "/"); r.Status != http.StatusFound || !strings.Contains(r.Header.Get("Location"), "/oauth/authorize?") {
		t.Fatalf("after sign-out: %d %v", r.Status, r.Header.Get("Location"))
	}
	grant := f.as.PostForm(t, "/oauth/token", "", url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refresh},
		"client_id": {authtest.GreetingID}, "client_secret": {authtest.GreetingSecret},
	})
	if grant.Status != http.StatusBadRequest && grant.Status != http.StatusUnauthorized {
		t.Fatalf("the refresh token still works after sign-out: %d %s", grant.Status, grant.Body)
	}
	if r := authtest.NewBrowser(t).Post(f.url+"/logout", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("sign-out without a session: %d", r.Status)
	}
}

func TestRoutes(t *testing.T) {
	f := start(t)
	b := authtest.NewBrowser(t)
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/nope", 404, ""},
		{http.MethodGet, "/logout", 405, "POST"},
		{http.MethodPost, "/", 405, "GET, HEAD"},
		{http.MethodDelete, "/", 405, "GET, HEAD"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, f.url+tt.path, nil)
		r := b.Do(req)
		if r.Status != tt.status || r.Header.Get("Allow") != tt.allow || !strings.Contains(r.Body, "<h1>") {
			t.Errorf("%s %s: %d Allow %q", tt.method, tt.path, r.Status, r.Header.Get("Allow"))
		}
		req.Header.Set("Accept", "application/json")
		if r := b.Do(req); r.JSON(t)["error"] == "" {
			t.Errorf("%s %s as JSON: %s", tt.method, tt.path, r.Body)
		}
	}
}
