package oidcdisco

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// provider is an authorization-server stand-in that serves a discovery
// document with oidc-provider's paths; change edits the document.
type provider struct {
	*httptest.Server
	calls atomic.Int32
	doc   atomic.Pointer[any] // map[string]any, or an int status to answer
}

func startProvider(t *testing.T, change func(base string, doc map[string]any)) *provider {
	t.Helper()
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		if r.URL.Path != WellKnownPath {
			http.NotFound(w, r)
			return
		}
		switch d := (*p.doc.Load()).(type) {
		case int:
			http.Error(w, "failing", d)
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(d)
		}
	}))
	t.Cleanup(p.Close)
	doc := map[string]any{
		"issuer": p.URL, "authorization_endpoint": p.URL + "/auth", "token_endpoint": p.URL + "/token",
		"userinfo_endpoint": p.URL + "/me", "jwks_uri": p.URL + "/jwks",
		"introspection_endpoint": p.URL + "/token/introspection", "revocation_endpoint": p.URL + "/token/revocation",
	}
	if change != nil {
		change(p.URL, doc)
	}
	p.store(doc)
	return p
}

func (p *provider) store(doc any) { p.doc.Store(&doc) }

func noRedirects() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func TestFetch(t *testing.T) {
	p := startProvider(t, nil)
	for _, args := range [][2]string{{"", p.URL}, {p.URL + WellKnownPath, ""}, {p.URL + WellKnownPath, p.URL}, {"", p.URL + "/"}} {
		m, err := Fetch(context.Background(), noRedirects(), args[0], args[1])
		if args[1] == p.URL+"/" {
			if err == nil || !strings.Contains(err.Error(), "trailing slash") {
				t.Errorf("issuer with a slash the document has not: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q %q: %v", args[0], args[1], err)
		}
		want := Metadata{
			Issuer: p.URL, AuthorizationEndpoint: p.URL + "/auth", TokenEndpoint: p.URL + "/token", UserinfoEndpoint: p.URL + "/me",
			JWKSURI: p.URL + "/jwks", IntrospectionEndpoint: p.URL + "/token/introspection",
			RevocationEndpoint: p.URL + "/token/revocation", Source: p.URL + WellKnownPath,
		}
		if *m != want {
			t.Errorf("got %+v\nwant %+v", *m, want)
		}
		if _, err := m.Endpoint("check_token_endpoint"); err == nil || err.Error() != "discovery document at "+p.URL+WellKnownPath+": check_token_endpoint missing" {
			t.Errorf("check_token_endpoint: %v", err)
		}
	}
}

func TestFetchRefusesBadDocuments(t *testing.T) {
	tests := []struct {
		name   string
		change func(base string, doc map[string]any)
		want   string // the error after "discovery document at URL: "
	}{
		{"another issuer", func(_ string, d map[string]any) { d["issuer"] = "http://evil.test" }, `issuer is "http://evil.test", not the issuer asked for`},
		{"no issuer", func(_ string, d map[string]any) { delete(d, "issuer") }, "issuer missing"},
		{"relative token endpoint", func(_ string, d map[string]any) { d["token_endpoint"] = "/token" }, `token_endpoint "/token" is not an absolute http(s) URL`},
		{"ftp jwks", func(_ string, d map[string]any) { d["jwks_uri"] = "ftp://x/jwks" }, "jwks_uri"},
		{"no host", func(_ string, d map[string]any) { d["introspection_endpoint"] = "http:///x" }, "introspection_endpoint \"http:///x\" has no host"},
		{"not an object", func(_ string, d map[string]any) { clear(d); d["issuer"] = []int{1} }, "not an OpenID Provider metadata JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, tt.change)
			_, err := Fetch(context.Background(), noRedirects(), "", p.URL)
			if _, ok := errors.AsType[*Error](err); !ok || !strings.HasPrefix(err.Error(), "discovery document at "+p.URL+WellKnownPath+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("missing endpoint", func(t *testing.T) {
		p := startProvider(t, func(_ string, d map[string]any) { delete(d, "token_endpoint") })
		m, err := Fetch(context.Background(), noRedirects(), "", p.URL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Endpoint("token_endpoint"); err == nil || err.Error() != "discovery document at "+p.URL+WellKnownPath+": token_endpoint missing" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("404", func(t *testing.T) {
		p := startProvider(t, nil)
		_, err := Fetch(context.Background(), noRedirects(), p.URL+"/nowhere", "")
		if err == nil || !strings.Contains(err.Error(), p.URL+"/nowhere: answered 404") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		p := startProvider(t, nil)
		p.Close()
		_, err := Fetch(context.Background(), noRedirects(), "", p.URL)
		if err == nil || !strings.Contains(err.Error(), p.URL+WellKnownPath) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestUAA(t *testing.T) {
	m := UAA("http://localhost:9000/")
	if m.Issuer != "http://localhost:9000/oauth/token" || m.CheckTokenEndpoint != "http://localhost:9000/check_token" ||
		m.JWKSURI != "http://localhost:9000/token_keys" || m.IntrospectionEndpoint != "http://localhost:9000/introspect" ||
		m.AuthorizationEndpoint != "http://localhost:9000/oauth/authorize" || m.RevocationEndpoint != "http://localhost:9000/oauth/revoke" ||
		m.UserinfoEndpoint != "http://localhost:9000/userinfo" || m.TokenEndpoint != "http://localhost:9000/oauth/token" {
		t.Fatalf("%+v", m)
	}
}

// TestProviderRetries: a failed fetch is remembered for a second, then
// retried; a good document is kept.
func TestProviderRetries(t *testing.T) {
	p := startProvider(t, nil)
	good := *p.doc.Load()
	p.store(http.StatusInternalServerError)
	now := time.Now()
	prov := Discovered(noRedirects(), "", p.URL, time.Second)
	prov.now = func() time.Time { return now }
	for range 3 {
		if _, err := prov.Metadata(context.Background()); err == nil || !strings.Contains(err.Error(), "answered 500") {
			t.Fatalf("got %v", err)
		}
	}
	if c := p.calls.Load(); c != 1 {
		t.Fatalf("%d fetches within a second of a failure, want 1", c)
	}
	p.store(good)
	now = now.Add(retryAfterFailure)
	for range 3 {
		if m, err := prov.Metadata(context.Background()); err != nil || m.TokenEndpoint != p.URL+"/token" {
			t.Fatalf("%+v %v", m, err)
		}
	}
	if c := p.calls.Load(); c != 2 {
		t.Fatalf("%d fetches, want 2", c)
	}
}
