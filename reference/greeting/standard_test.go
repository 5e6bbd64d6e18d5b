package greeting

import (
	"crypto/rand"
	"crypto/rsa"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v3"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
	"github.com/fortune-tck/fortune-tck/reference/internal/oidcdisco"
)

// TestDiscoveryAtTheReferenceServer: the whole sign-in with the reference
// authorization server found by discovery: its issuer is
// {auth_url}/oauth/token, and the ID token's signature is checked with
// its JWKS.
func TestDiscoveryAtTheReferenceServer(t *testing.T) {
	f := startWith(t, func(f *fixture, o *Options) { o.Issuer = f.as.URL + "/oauth/token" })
	if err := f.g.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
	b := authtest.NewBrowser(t)
	f.signIn(t, b)
	r, page := f.page(t, b)
	if r.Status != http.StatusOK || page["fortune"] == "" || page["user"] != "Marissa Bloggs" {
		t.Fatalf("%d %v", r.Status, page)
	}
	if k := f.as.Calls("/token_keys"); k != 1 {
		t.Errorf("%d fetches of token_keys, want 1", k)
	}
}

// standardServer stands in for a standard OpenID Connect server with
// oidc-provider's paths (/auth, /token, /me, /jwks), its base URL as
// issuer. /auth sends the browser straight back with a code (no sign-in
// page); /token answers an opaque access token and an ID token whose
// claims and signing key a test may change.
type standardServer struct {
	*httptest.Server
	mu       sync.Mutex
	nonces   map[string]string // code -> nonce
	idToken  func(claims map[string]any) (key *rsa.PrivateKey, kid string)
	tokenReq url.Values
	calls    map[string]int
}

func startStandard(t *testing.T) *standardServer {
	t.Helper()
	s := &standardServer{nonces: map[string]string{}, calls: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *standardServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	switch r.URL.Path {
	case oidcdisco.WellKnownPath:
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": s.URL, "authorization_endpoint": s.URL + "/auth", "token_endpoint": s.URL + "/token",
			"userinfo_endpoint": s.URL + "/me", "jwks_uri": s.URL + "/jwks", "revocation_endpoint": s.URL + "/token/revocation",
		})
	case "/jwks":
		pub := jose.JSONWebKey{Key: &authtest.Key().PublicKey, KeyID: "std-key", Algorithm: "RS256", Use: "sig"}
		writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}})
	case "/auth":
		q := r.URL.Query()
		code := rand.Text()
		s.nonces[code] = q.Get("nonce")
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		s.tokenReq = r.PostForm
		nonce, ok := s.nonces[r.PostForm.Get("code")]
		if !ok || r.PostForm.Get("client_id") != "greeting" || r.PostForm.Get("client_secret") != "greeting-secret" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		claims := map[string]any{
			"iss": s.URL, "aud": "greeting", "sub": "u-1", "nonce": nonce,
			"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(),
		}
		key, kid := authtest.Key(), "std-key"
		if s.idToken != nil {
			key, kid = s.idToken(claims)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token": "opaque-" + rand.Text(), "token_type": "Bearer", "expires_in": 3600,
			"id_token": forge(key, kid, claims), "scope": "openid fortunes.read",
		})
	case "/me":
		writeJSON(w, http.StatusOK, map[string]string{"sub": "u-1", "preferred_username": "marissa"})
	default:
		http.NotFound(w, r)
	}
}

func (s *standardServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

func forge(key *rsa.PrivateKey, kid string, claims map[string]any) string {
	return authtest.Forge(nopTB{}, key, kid, claims)
}

// nopTB lets forge run in a handler, outside the test's goroutine;
// signing does not fail.
type nopTB struct{ testing.TB }

func (nopTB) Helper() {}

// standardFixture is the greeting client against a standardServer, with
// a fortune service stand-in that answers any bearer token.
type standardFixture struct {
	std  *standardServer
	g    *Server
	url  string
	logs *syncbuf.Buffer
}

func startAtStandard(t *testing.T, opts Options) *standardFixture {
	t.Helper()
	fortunes := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer opaque-") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "A fortune -- the stand-in\n")
	}))
	t.Cleanup(fortunes.Close)
	f := &standardFixture{std: startStandard(t), logs: &syncbuf.Buffer{}}
	hs := httptest.NewUnstartedServer(nil)
	f.url = "http://" + hs.Listener.Addr().String()
	opts.URL, opts.FortuneURL = f.url, fortunes.URL
	if opts.DiscoveryURL == "" {
		opts.Issuer = f.std.URL
	}
	opts.Logger = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	g, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.g = g
	hs.Config.Handler = g
	hs.Start()
	t.Cleanup(hs.Close)
	return f
}

// signIn goes to the client, to /auth and back; it returns the answer of
// the way back.
func (f *standardFixture) signIn(t *testing.T, b *authtest.Browser) authtest.Reply {
	t.Helper()
	r := b.Get(f.url + "/")
	if r.Status != http.StatusFound {
		t.Fatalf("GET /: %d %s", r.Status, r.Body)
	}
	auth := r.Location(t)
	if got := auth.Scheme + "://" + auth.Host + auth.Path; got != f.std.URL+"/auth" {
		t.Fatalf("sent to %s, want the discovered authorization endpoint", got)
	}
	back := b.Get(auth.String()).Location(t)
	return b.Get(back.String())
}

func TestSignInAtAStandardServer(t *testing.T) {
	f := startAtStandard(t, Options{})
	if err := f.g.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
	b := authtest.NewBrowser(t)
	if r := f.signIn(t, b); r.Status != http.StatusFound || r.Header.Get("Location") != "/" {
		t.Fatalf("the way back: %d %s\n%s", r.Status, r.Body, f.logs)
	}
	r := b.Get(f.url+"/", "application/json")
	if page := r.JSON(t); r.Status != http.StatusOK || page["user"] != "marissa" || page["fortune"] != "A fortune -- the stand-in" {
		t.Fatalf("%d %v", r.Status, page)
	}
	if f.std.tokenReq.Get("client_secret") != "greeting-secret" || f.std.tokenReq.Get("code_verifier") == "" {
		t.Errorf("token request %v: want client_secret_post and PKCE", f.std.tokenReq)
	}
	if k := f.std.count("/jwks"); k != 1 {
		t.Errorf("%d fetches of the JWKS", k)
	}
}

// TestIDTokenChecksAtAStandardServer: each ID token fault fails the
// sign-in, with the reason in the log.
func TestIDTokenChecksAtAStandardServer(t *testing.T) {
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	tests := []struct {
		name   string
		change func(c map[string]any) (*rsa.PrivateKey, string)
		log    string
	}{
		{"another key under the server's kid", func(map[string]any) (*rsa.PrivateKey, string) { return other, "std-key" }, "signature does not verify"},
		{"an unknown kid", func(map[string]any) (*rsa.PrivateKey, string) { return other, "mine" }, `signing key \"mine\" is not in`},
		{"UAA's issuer shape", func(c map[string]any) (*rsa.PrivateKey, string) {
			c["iss"] = c["iss"].(string) + "/oauth/token"
			return authtest.Key(), "std-key"
		}, "/oauth/token, not http"},
		{"another audience", func(c map[string]any) (*rsa.PrivateKey, string) {
			c["aud"] = "account"
			return authtest.Key(), "std-key"
		}, "not for this client"},
		{"expired", func(c map[string]any) (*rsa.PrivateKey, string) {
			c["exp"] = time.Now().Add(-time.Second).Unix()
			return authtest.Key(), "std-key"
		}, "has expired"},
		{"another nonce", func(c map[string]any) (*rsa.PrivateKey, string) { c["nonce"] = "n"; return authtest.Key(), "std-key" }, "nonce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startAtStandard(t, Options{})
			f.std.idToken = tt.change
			r := f.signIn(t, authtest.NewBrowser(t))
			if r.Status != http.StatusBadGateway || !strings.Contains(f.logs.String(), tt.log) {
				t.Fatalf("want 502 and %q in the log, got %d\n%s", tt.log, r.Status, f.logs)
			}
		})
	}
}

func TestDiscoveryFailures(t *testing.T) {
	std := startStandard(t)
	g, err := New(Options{Issuer: std.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	want := "greeting: discovery document at " + std.URL + "/.well-known/openid-configuration: issuer is"
	if err := g.Discover(t.Context()); err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "trailing slash") {
		t.Fatalf("got %v\nwant %s...", err, want)
	}

	f := startAtStandard(t, Options{DiscoveryURL: std.URL + "/nowhere"})
	r := authtest.NewBrowser(t).Get(f.url + "/")
	if r.Status != http.StatusBadGateway || !strings.Contains(f.logs.String(), std.URL+"/nowhere: answered 404") {
		t.Fatalf("GET / with no discovery document: %d\n%s", r.Status, f.logs)
	}

	for _, o := range []Options{{AuthURL: "http://a.test", Issuer: "http://b.test"}, {Issuer: "b.test"}} {
		if _, err := New(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestDiscoveredAuthorizationEndpointWithAQuery keeps the endpoint's own
// query.
func TestDiscoveredAuthorizationEndpointWithAQuery(t *testing.T) {
	s, _ := New(Options{})
	u, _ := url.Parse(s.authorizeURL("http://as.test/authorize?tenant=x", &pendingLogin{state: "s", nonce: "n", verifier: "v"}))
	if u.Query().Get("tenant") != "x" || u.Query().Get("state") != "s" || u.Path != "/authorize" {
		t.Fatalf("%s", u)
	}
}
