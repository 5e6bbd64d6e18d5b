package authserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestAuthorizeErrorsDoNotRedirect: when the client or its redirect URI
// cannot be trusted, the error is a page and nobody is redirected.
func TestAuthorizeErrorsDoNotRedirect(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name   string
		change func(p map[string][]string)
		want   string
	}{
		{"unregistered redirect", func(p map[string][]string) { p["redirect_uri"] = []string{"http://evil.example/"} },
			"Invalid redirect http://evil.example/ did not match one of the registered values"},
		{"redirect with another path", func(p map[string][]string) { p["redirect_uri"] = []string{"http://localhost:8100/other"} },
			"Invalid redirect http://localhost:8100/other did not match one of the registered values"},
		{"unknown client", func(p map[string][]string) { p["client_id"] = []string{"nope"} }, "No client with requested id: nope"},
		{"no client", func(p map[string][]string) { delete(p, "client_id") }, "A client_id must be supplied."},
		{"malformed query", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBrowser(t, ts)
			b.signIn("marissa", "koala")
			target := "/oauth/authorize?client_id=greeting&redirect_uri=%zz"
			if tt.change != nil {
				p := authParams("openid")
				tt.change(p)
				target = authorizeURL(p)
			}
			r := b.get(target)
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
				t.Fatalf("want 400 without redirect, got %d %q", r.status, r.header.Get("Location"))
			}
			if !strings.Contains(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.body, tt.want) {
				t.Fatalf("page lacks %q:\n%s", tt.want, r.body)
			}
		})
	}
}

// TestAuthorizeErrorsRedirect: with a trusted redirect URI, errors go back
// to the client with the state.
func TestAuthorizeErrorsRedirect(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	b.signIn("marissa", "koala")
	tests := []struct{ name, key, value, want string }{
		{"implicit grant", "response_type", "token", "unsupported_response_type"},
		{"short state", "state", "abc", "invalid_state"},
		{"short nonce", "nonce", "abc", "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := authParams("openid")
			p.Set(tt.key, tt.value)
			r := b.get(authorizeURL(p))
			if r.status != http.StatusSeeOther || r.location(t).Query().Get("error") != tt.want {
				t.Fatalf("want a redirect with %s, got %d %v", tt.want, r.status, r.header.Get("Location"))
			}
		})
	}
}

// TestAuthorizeBeforeSignIn: a bad request is reported before sign-in.
func TestAuthorizeBeforeSignIn(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	p := authParams("openid")
	p.Set("redirect_uri", "http://evil.example/")
	if r := b.get(authorizeURL(p)); r.status != http.StatusBadRequest {
		t.Fatalf("%d", r.status)
	}
}

func TestStaleConsentForm(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	form := map[string][]string{csrfField: {"unknown"}, approvalField: {"true"}}
	if r := b.post("/oauth/authorize", form); r.status != http.StatusBadRequest {
		t.Fatalf("decision without a session: %d", r.status)
	}
	b.signIn("marissa", "koala")
	if r := b.post("/oauth/authorize", form); r.status != http.StatusForbidden {
		t.Fatalf("decision with an unknown form token: %d", r.status)
	}
}
