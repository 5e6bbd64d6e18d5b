package fortune

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// clock is time.Now moved by an offset that tests set.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// fixture is a fortune service over real HTTP in front of a real
// authorization server.
type fixture struct {
	as    *authtest.Server
	srv   *Server
	url   string
	clock *clock
	logs  *syncbuf.Buffer
}

// start runs the service against as (a new authorization server when nil)
// with opts; AuthURL defaults to as's (unless opts has an issuer or a
// discovery URL), and the log (at debug level) goes
// to f.logs unless opts has a Logger.
func start(t testing.TB, as *authtest.Server, opts Options) *fixture {
	t.Helper()
	if as == nil {
		as = authtest.Start(t)
	}
	if opts.AuthURL == "" && opts.Issuer == "" && opts.DiscoveryURL == "" {
		opts.AuthURL = as.URL
	}
	f := &fixture{as: as, clock: &clock{}, logs: &syncbuf.Buffer{}}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := newServer(opts, f.clock.now)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	f.srv, f.url = srv, hs.URL
	return f
}

// call sends method path with the Authorization header values given.
func (f *fixture) call(t testing.TB, method, path string, authorization ...string) authtest.Reply {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range authorization {
		req.Header.Add("Authorization", a)
	}
	return authtest.Send(t, req)
}

// get fetches path with a bearer token ("" for none).
func (f *fixture) get(t testing.TB, path, token string) authtest.Reply {
	t.Helper()
	if token == "" {
		return f.call(t, http.MethodGet, path)
	}
	return f.call(t, http.MethodGet, path, "Bearer "+token)
}

// wantFortune checks a 200 with a fortune of the collection.
func wantFortune(t testing.TB, r authtest.Reply) string {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("want a fortune, got %d %s (WWW-Authenticate %q)", r.Status, r.Body, r.Header.Get("WWW-Authenticate"))
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	text := strings.TrimSuffix(r.Body, "\n")
	if !slices.Contains(collection, text) {
		t.Errorf("%q is not a fortune of the collection", r.Body)
	}
	return text
}

// wantRefusal checks an RFC 6750 refusal: the status, the challenge's
// error (none when code is "") and a description containing desc.
func wantRefusal(t testing.TB, r authtest.Reply, status int, code, desc string) {
	t.Helper()
	h := r.Header.Get("WWW-Authenticate")
	if r.Status != status {
		t.Fatalf("want %d %s, got %d %s (WWW-Authenticate %q)", status, code, r.Status, r.Body, h)
	}
	if !strings.HasPrefix(h, `Bearer realm="fortunes"`) {
		t.Errorf("WWW-Authenticate %q, want a Bearer challenge in realm fortunes", h)
	}
	if code == "" {
		if h != `Bearer realm="fortunes"` {
			t.Errorf("WWW-Authenticate %q: no token was sent, so no error attributes", h)
		}
		return
	}
	if !strings.Contains(h, `error="`+code+`"`) || !strings.Contains(h, desc) {
		t.Errorf("WWW-Authenticate %q, want error=%q and %q", h, code, desc)
	}
	if m := r.JSON(t); m["error"] != code || !strings.Contains(m["error_description"].(string), desc) {
		t.Errorf("body %s", r.Body)
	}
}

// shortLivedToken is a client token with fortunes.read that has expired
// when it is returned (the authorization server says so too).
func shortLivedToken(t testing.TB, as *authtest.Server) string {
	t.Helper()
	token := as.ResourceClient(t, "short", 1, RequiredScope)
	time.Sleep(time.Until(authtest.Expiry(t, token)) + 10*time.Millisecond)
	return token
}
