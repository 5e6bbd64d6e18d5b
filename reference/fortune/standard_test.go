package fortune

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v3"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
	"github.com/fortune-tck/fortune-tck/reference/internal/oidcdisco"
)

// standardServer stands in for a standard OpenID Connect server such as
// oidc-provider: its issuer is its base URL (no /oauth/token), its
// discovery document lists /token/introspection and /jwks, its access
// tokens are opaque (introspected) or JWTs signed with authtest.Key()
// under the kid "std-key". It speaks real HTTP; it knows the fortune
// client as fortune / fortune-secret.
type standardServer struct {
	*httptest.Server
	mu     sync.Mutex
	opaque map[string]map[string]any // token -> introspection answer
	calls  map[string]int
	doc    map[string]any
}

func startStandard(t *testing.T) *standardServer {
	t.Helper()
	s := &standardServer{opaque: map[string]map[string]any{}, calls: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	s.doc = map[string]any{
		"issuer": s.URL, "authorization_endpoint": s.URL + "/auth", "token_endpoint": s.URL + "/token",
		"userinfo_endpoint": s.URL + "/me", "jwks_uri": s.URL + "/jwks",
		"introspection_endpoint": s.URL + "/token/introspection", "revocation_endpoint": s.URL + "/token/revocation",
	}
	return s
}

func (s *standardServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == oidcdisco.WellKnownPath:
		_ = json.NewEncoder(w).Encode(s.doc)
	case r.URL.Path == "/jwks":
		pub := jose.JSONWebKey{Key: &authtest.Key().PublicKey, KeyID: "std-key", Algorithm: "RS256", Use: "sig"}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}})
	case r.URL.Path == "/token/introspection" && r.Method == http.MethodPost:
		id, secret, ok := r.BasicAuth()
		if !ok || id != "fortune" || secret != "fortune-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		answer, ok := s.opaque[r.PostFormValue("token")]
		if !ok && strings.Count(r.PostFormValue("token"), ".") == 2 {
			// As oidc-provider does for a JWT it cannot have issued.
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"unsupported_token_type","error_description":"Structured JWT Tokens cannot be introspected"}`))
			return
		}
		if !ok {
			answer = map[string]any{"active": false}
		}
		_ = json.NewEncoder(w).Encode(answer)
	default:
		http.NotFound(w, r)
	}
}

func (s *standardServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

// token registers an opaque token with its introspection answer.
func (s *standardServer) token(answer map[string]any) string {
	token := rand.Text()
	s.mu.Lock()
	s.opaque[token] = answer
	s.mu.Unlock()
	return token
}

// jwt signs an access token of the server: iss is its issuer, exp an hour
// away, unless claims say otherwise.
func (s *standardServer) jwt(t *testing.T, claims map[string]any) string {
	c := map[string]any{"iss": s.URL, "exp": time.Now().Add(time.Hour).Unix(), "sub": "u-1", "client_id": "reader"}
	for k, v := range claims {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return authtest.Forge(t, authtest.Key(), "std-key", c)
}

func TestIntrospectionAtAStandardServer(t *testing.T) {
	std := startStandard(t)
	f := start(t, nil, Options{Issuer: std.URL, Validation: ValidateIntrospection})
	if err := f.srv.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Hour).Unix()
	good := std.token(map[string]any{"active": true, "scope": "openid fortunes.read", "exp": exp, "client_id": "greeting", "username": "marissa"})
	for range 3 {
		wantFortune(t, f.get(t, "/", good))
	}
	if c := std.count("/token/introspection"); c != 3 {
		t.Errorf("%d introspections for 3 requests, want 3", c)
	}
	if d := std.count(oidcdisco.WellKnownPath); d != 1 {
		t.Errorf("%d fetches of the discovery document, want 1", d)
	}
	tests := []struct {
		name       string
		answer     map[string]any
		status     int
		code, desc string
	}{
		{"inactive", nil, 401, "invalid_token", "not active"},
		{"scope without fortunes.read", map[string]any{"active": true, "scope": "openid fortunes.readers"}, 403, "insufficient_scope", "Insufficient scope"},
		{"no scope", map[string]any{"active": true}, 403, "insufficient_scope", "Insufficient scope"},
		{"exp passed", map[string]any{"active": true, "scope": "fortunes.read", "exp": time.Now().Add(-time.Second).Unix()}, 401, "invalid_token", "Token has expired"},
		{"a refresh token (Hydra)", map[string]any{"active": true, "scope": "fortunes.read", "token_use": "refresh_token"}, 401, "invalid_token", "refresh token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := "unknown-" + rand.Text()
			if tt.answer != nil {
				token = std.token(tt.answer)
			}
			wantRefusal(t, f.get(t, "/", token), tt.status, tt.code, tt.desc)
		})
	}
	t.Run("scope as an array", func(t *testing.T) {
		wantFortune(t, f.get(t, "/", std.token(map[string]any{"active": true, "scope": []string{"fortunes.read"}})))
	})
}

func TestIntrospectionCacheStopsAtExp(t *testing.T) {
	std := startStandard(t)
	f := start(t, nil, Options{Issuer: std.URL, Validation: ValidateIntrospection, CacheSize: 10, CacheTTL: time.Hour})
	token := std.token(map[string]any{"active": true, "scope": "fortunes.read", "exp": time.Now().Add(time.Minute).Unix()})
	for range 3 {
		wantFortune(t, f.get(t, "/", token))
	}
	if c := std.count("/token/introspection"); c != 1 {
		t.Fatalf("%d introspections with the cache, want 1", c)
	}
	f.clock.advance(time.Minute)
	wantRefusal(t, f.get(t, "/", token), 401, "invalid_token", "Token has expired")
	if c := std.count("/token/introspection"); c != 2 {
		t.Fatalf("%d introspections: a cached answer was used past exp", c)
	}
}

func TestIntrospectionUnavailable(t *testing.T) {
	std := startStandard(t)
	token := std.token(map[string]any{"active": true, "scope": "fortunes.read"})
	tests := []struct {
		name string
		opts Options
		log  string
	}{
		{"wrong secret", Options{Issuer: std.URL, ClientSecret: "wrong"}, "/token/introspection refused the fortune client"},
		{"wrong issuer", Options{Issuer: std.URL + "/realms/x"}, "discovery document at " + std.URL + "/realms/x/.well-known/openid-configuration: answered 404"},
		{"no introspection endpoint", Options{DiscoveryURL: std.URL + oidcdisco.WellKnownPath, IntrospectionURL: std.URL + "/nowhere"}, "/nowhere answered 404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Validation = ValidateIntrospection
			f := start(t, nil, tt.opts)
			r := f.get(t, "/", token)
			if r.Status != http.StatusServiceUnavailable {
				t.Fatalf("want 503, got %d %s", r.Status, r.Body)
			}
			if logs := f.logs.String(); !strings.Contains(logs, tt.log) {
				t.Errorf("log lacks %q:\n%s", tt.log, logs)
			}
		})
	}
}

// A server that refuses to introspect a token it cannot have issued (400 unsupported_token_type) has said the
// token is not valid there: the caller gets 401, not 503.
func TestIntrospectionOfAForeignJWTIsRefused(t *testing.T) {
	std := startStandard(t)
	f := start(t, nil, Options{Issuer: std.URL, Validation: ValidateIntrospection})
	forged := authtest.Forge(t, authtest.Key(), "other", map[string]any{"iss": "https://elsewhere", "scope": "fortunes.read"})
	if r := f.get(t, "/", forged); r.Status != http.StatusUnauthorized {
		t.Fatalf("want 401, got %d %s", r.Status, r.Body)
	}
}

// TestIntrospectionURLWithoutDiscovery: an explicit URL needs no
// discovery document.
func TestIntrospectionURLWithoutDiscovery(t *testing.T) {
	std := startStandard(t)
	f := start(t, nil, Options{IntrospectionURL: std.URL + "/token/introspection", Validation: ValidateIntrospection})
	wantFortune(t, f.get(t, "/", std.token(map[string]any{"active": true, "scope": "fortunes.read"})))
	if d := std.count(oidcdisco.WellKnownPath); d != 0 {
		t.Errorf("%d fetches of the discovery document", d)
	}
}

func TestJWTAtAStandardServer(t *testing.T) {
	std := startStandard(t)
	f := start(t, nil, Options{Issuer: std.URL, Validation: ValidateJWT, Audience: "fortunes-api"})
	aud := []string{"fortunes-api"}
	for name, claims := range map[string]map[string]any{
		"scope string (Keycloak)":    {"scope": "openid fortunes.read", "aud": "fortunes-api"},
		"scope array (Spring)":       {"scope": []string{"fortunes.read"}, "aud": aud},
		"scp array (Hydra)":          {"scp": []string{"openid", "fortunes.read"}, "aud": []string{"other", "fortunes-api"}},
		"preferred_username, no cid": {"scope": "fortunes.read", "aud": aud, "client_id": nil, "preferred_username": "marissa"},
	} {
		t.Run(name, func(t *testing.T) { wantFortune(t, f.get(t, "/", std.jwt(t, claims))) })
	}
	if c := std.count("/token/introspection"); c != 0 {
		t.Errorf("%d introspections in jwt mode", c)
	}
	tests := []struct {
		name       string
		claims     map[string]any
		status     int
		code, desc string
	}{
		{"UAA's issuer shape", map[string]any{"iss": std.URL + "/oauth/token", "scope": "fortunes.read", "aud": aud}, 401, "invalid_token", "another issuer"},
		{"another audience", map[string]any{"scope": "fortunes.read", "aud": "account"}, 401, "invalid_token", "not for the audience fortunes-api"},
		{"no audience", map[string]any{"scope": "fortunes.read"}, 401, "invalid_token", "audience"},
		{"expired", map[string]any{"scope": "fortunes.read", "aud": aud, "exp": time.Now().Add(-time.Second).Unix()}, 401, "invalid_token", "Token has expired"},
		{"no fortunes.read", map[string]any{"scope": "openid", "scp": []string{"fortunes.read"}, "aud": aud}, 403, "insufficient_scope", "Insufficient scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantRefusal(t, f.get(t, "/", std.jwt(t, tt.claims)), tt.status, tt.code, tt.desc)
		})
	}
	if k, d := std.count("/jwks"), std.count(oidcdisco.WellKnownPath); k != 1 || d != 1 {
		t.Errorf("%d fetches of the JWKS and %d of the discovery document, want 1 and 1", k, d)
	}
}

// TestJWTWithoutAudienceOption: no Audience, no aud check.
func TestJWTWithoutAudienceOption(t *testing.T) {
	std := startStandard(t)
	f := start(t, nil, Options{DiscoveryURL: std.URL + oidcdisco.WellKnownPath, Validation: ValidateJWT})
	wantFortune(t, f.get(t, "/", std.jwt(t, map[string]any{"scope": "fortunes.read"})))
}

func TestDiscoverFailsFast(t *testing.T) {
	std := startStandard(t)
	std.doc["issuer"] = "http://elsewhere.test"
	f := start(t, nil, Options{Issuer: std.URL, Validation: ValidateJWT})
	err := f.srv.Discover(t.Context())
	want := "fortune: discovery document at " + std.URL + oidcdisco.WellKnownPath + `: issuer is "http://elsewhere.test", not the issuer asked for`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	r := f.get(t, "/", std.jwt(t, map[string]any{"scope": "fortunes.read"}))
	if r.Status != http.StatusServiceUnavailable || !strings.Contains(f.logs.String(), "not the issuer asked for") {
		t.Fatalf("a request with a wrong discovery document: %d %s\n%s", r.Status, r.Body, f.logs)
	}

	delete(std.doc, "introspection_endpoint")
	std.doc["issuer"] = std.URL
	f = start(t, nil, Options{Issuer: std.URL, Validation: ValidateIntrospection})
	if err := f.srv.Discover(t.Context()); err == nil || !strings.HasSuffix(err.Error(), ": introspection_endpoint missing") {
		t.Fatalf("got %v", err)
	}
	// Without discovery, nothing to look up.
	if err := start(t, nil, Options{}).srv.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestStandardModesAtTheReferenceServer: the reference authorization
// server found by discovery, its issuer being {auth_url}/oauth/token.
func TestStandardModesAtTheReferenceServer(t *testing.T) {
	as := authtest.Start(t)
	user := as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
	revoked := as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read").AccessToken
	as.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, revoked)
	t.Run("introspection", func(t *testing.T) {
		f := start(t, as, Options{Issuer: as.URL + "/oauth/token", Validation: ValidateIntrospection})
		if err := f.srv.Discover(t.Context()); err != nil {
			t.Fatal(err)
		}
		wantFortune(t, f.get(t, "/", user.AccessToken))
		wantRefusal(t, f.get(t, "/", revoked), 401, "invalid_token", "not active")
		wantRefusal(t, f.get(t, "/", as.ClientToken(t, "admin", "adminsecret")), 403, "insufficient_scope", "Insufficient scope")
		if c := as.Calls("/introspect"); c != 3 {
			t.Errorf("%d calls to /introspect, want 3", c)
		}
	})
	t.Run("jwt", func(t *testing.T) {
		f := start(t, as, Options{DiscoveryURL: as.URL + "/.well-known/openid-configuration", Validation: ValidateJWT, Audience: "fortunes"})
		wantFortune(t, f.get(t, "/", user.AccessToken))
		wantRefusal(t, f.get(t, "/", as.ClientToken(t, "admin", "adminsecret")), 401, "invalid_token", "audience")
	})
	t.Run("check_token with an explicit URL", func(t *testing.T) {
		f := start(t, as, Options{Issuer: as.URL + "/oauth/token", CheckTokenURL: as.URL + "/check_token", Audience: "fortunes"})
		wantFortune(t, f.get(t, "/", user.AccessToken))
		wantRefusal(t, f.get(t, "/", revoked), 401, "invalid_token", "revoked")
	})
}

func TestNewRejectsBadEndpointOptions(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{Validation: "introspect"}, `unknown token validation "introspect"; valid: check_token, introspection, jwt`},
		{Options{AuthURL: "http://a.test", Issuer: "http://b.test"}, "not both"},
		{Options{Issuer: "http://b.test"}, "needs the check_token URL"},
		{Options{Issuer: "b.test", Validation: ValidateJWT}, `invalid issuer: "b.test" is not an absolute http(s) URL`},
		{Options{IntrospectionURL: "/introspect", Validation: ValidateIntrospection}, "invalid introspection URL"},
	}
	for _, tt := range tests {
		if _, err := New(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.opts, err, tt.want)
		}
	}
	if _, err := New(Options{Issuer: "http://b.test", Validation: ValidateIntrospection, CacheSize: 5}); err != nil {
		t.Errorf("introspection with a cache: %v", err)
	}
}
