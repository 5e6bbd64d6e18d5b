package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeHydra answers the admin API's login and consent requests as Hydra does and records what was accepted or
// rejected.
type fakeHydra struct {
	mu       sync.Mutex
	subject  string // the consent request's subject
	requests map[string]map[string]any
}

func (f *fakeHydra) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/admin/oauth2/auth/requests/")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && path == "login":
		_ = json.NewEncoder(w).Encode(map[string]any{"challenge": r.URL.Query().Get("login_challenge"),
			"client": map[string]any{"client_id": "tck-web"}, "requested_scope": []string{"openid", "fortunes.read"}})
	case r.Method == http.MethodGet && path == "consent":
		_ = json.NewEncoder(w).Encode(map[string]any{"challenge": r.URL.Query().Get("consent_challenge"),
			"subject": f.subject, "client": map[string]any{"client_id": "tck-web"},
			"requested_scope": []string{"openid", "fortunes.read"}})
	case r.Method == http.MethodPut:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.requests[path] = body
		_ = json.NewEncoder(w).Encode(map[string]string{"redirect_to": "http://hydra.invalid/" + path})
	default:
		http.NotFound(w, r)
	}
}

func newApp(t *testing.T, subject string) (*fakeHydra, *httptest.Server) {
	t.Helper()
	hydra := &fakeHydra{subject: subject, requests: map[string]map[string]any{}}
	admin := httptest.NewServer(hydra)
	t.Cleanup(admin.Close)
	u, _ := url.Parse(admin.URL)
	app := &App{Admin: u, HTTP: admin.Client(), Users: Users, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	return hydra, srv
}

func noRedirects() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAuthenticate(t *testing.T) {
	for _, c := range []struct {
		user, password string
		ok             bool
	}{{"alice", "alice-password", true}, {"bob", "bob-password", true}, {"alice", "bob-password", false},
		{"alice", "", false}, {"nobody", "alice-password", false}, {"", "", false}} {
		if _, ok := authenticate(Users, c.user, c.password); ok != c.ok {
			t.Errorf("authenticate(%q, %q) = %v, want %v", c.user, c.password, ok, c.ok)
		}
	}
}

func TestSignIn(t *testing.T) {
	hydra, srv := newApp(t, "")
	page := body(t, must(http.Get(srv.URL+"/login?login_challenge=c1")))
	for _, want := range []string{`type="password"`, `name="username"`, `value="c1"`, `Sign in</button>`} {
		if !strings.Contains(page, want) {
			t.Errorf("sign-in page lacks %s:\n%s", want, page)
		}
	}

	resp := must(noRedirects().PostForm(srv.URL+"/login", url.Values{"login_challenge": {"c1"}, "username": {"alice"}, "password": {"wrong"}}))
	if page := body(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(page, "Invalid username or password.") || !strings.Contains(page, `type="password"`) {
		t.Errorf("a wrong password: %d, want the sign-in page again with an error:\n%s", resp.StatusCode, page)
	}
	if _, accepted := hydra.requests["login/accept"]; accepted {
		t.Fatal("a wrong password was accepted")
	}

	resp = must(noRedirects().PostForm(srv.URL+"/login", url.Values{"login_challenge": {"c1"}, "username": {"alice"}, "password": {"alice-password"}}))
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || loc != "http://hydra.invalid/login/accept" {
		t.Errorf("the right password: %d to %q, want 302 to Hydra's redirect_to", resp.StatusCode, loc)
	}
	if got := hydra.requests["login/accept"]; got["subject"] != Users[0].Subject || got["remember"] != false {
		t.Errorf("login accepted with %v", got)
	}
}

func TestConsent(t *testing.T) {
	for _, c := range []struct {
		user    User
		offered []string
		grant   []string
	}{
		{Users[0], []string{"openid", "fortunes.read"}, []string{"openid", "fortunes.read"}},
		{Users[1], []string{"openid"}, []string{"openid"}}, // not in the group: never fortunes.read
	} {
		t.Run(c.user.Username, func(t *testing.T) {
			hydra, srv := newApp(t, c.user.Subject)
			page := body(t, must(http.Get(srv.URL+"/consent?consent_challenge=c2")))
			for _, s := range []string{"openid", "fortunes.read"} {
				box := `name="grant_scope" value="` + s + `" checked`
				if got := strings.Contains(page, box); got != slices.Contains(c.offered, s) {
					t.Errorf("box for %s shown: %v, want %v:\n%s", s, got, !got, page)
				}
			}
			// The form sends every scope, as a forged form could: the group policy still holds.
			resp := must(noRedirects().PostForm(srv.URL+"/consent", url.Values{"consent_challenge": {"c2"}, "action": {"allow"},
				"grant_scope": {"openid", "fortunes.read"}}))
			resp.Body.Close()
			got := hydra.requests["consent/accept"]
			var granted []string
			for _, s := range got["grant_scope"].([]any) {
				granted = append(granted, s.(string))
			}
			if !slices.Equal(granted, c.grant) || got["remember"] != false {
				t.Errorf("consent accepted with %v, want grant_scope %v and remember false", got, c.grant)
			}
			claims := got["session"].(map[string]any)["id_token"].(map[string]any)
			if claims["email"] != c.user.Email || claims["preferred_username"] != c.user.Username {
				t.Errorf("ID token claims %v", claims)
			}
		})
	}
}

func TestConsentUntickedAndDenied(t *testing.T) {
	hydra, srv := newApp(t, Users[0].Subject)
	resp := must(noRedirects().PostForm(srv.URL+"/consent", url.Values{"consent_challenge": {"c3"}, "action": {"allow"}, "grant_scope": {"openid"}}))
	resp.Body.Close()
	if got := hydra.requests["consent/accept"]["grant_scope"]; len(got.([]any)) != 1 {
		t.Errorf("unticked fortunes.read, granted %v", got)
	}
	resp = must(noRedirects().PostForm(srv.URL+"/consent", url.Values{"consent_challenge": {"c3"}, "action": {"deny"}}))
	resp.Body.Close()
	if got := hydra.requests["consent/reject"]; got["error"] != "access_denied" || resp.Header.Get("Location") != "http://hydra.invalid/consent/reject" {
		t.Errorf("deny: rejected with %v, redirected to %q", got, resp.Header.Get("Location"))
	}
}

func TestErrorPage(t *testing.T) {
	_, srv := newApp(t, "")
	resp := must(http.Get(srv.URL + "/error?error=invalid_request&error_description=bad+redirect_uri"))
	if page := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "bad redirect_uri") {
		t.Errorf("error page: %d\n%s", resp.StatusCode, page)
	}
}

func must(resp *http.Response, err error) *http.Response {
	if err != nil {
		panic(err)
	}
	return resp
}
