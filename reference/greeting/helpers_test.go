package greeting

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/reference/fortune"
	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// fortuneFront stands in front of the real fortune service: it counts
// calls, remembers the last token, and lets a test answer in its place.
type fortuneFront struct {
	real     http.Handler
	calls    atomic.Int32
	override atomic.Pointer[http.HandlerFunc] // answers instead of real when set
	mu       sync.Mutex
	lastAuth string
}

func (f *fortuneFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	f.mu.Lock()
	f.lastAuth = r.Header.Get("Authorization")
	f.mu.Unlock()
	if h := f.override.Load(); h != nil {
		(*h)(w, r)
		return
	}
	f.real.ServeHTTP(w, r)
}

func (f *fortuneFront) answer(h http.HandlerFunc) { f.override.Store(&h) }
func (f *fortuneFront) reset()                    { f.override.Store(nil) }

func (f *fortuneFront) lastToken() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastAuth
}

// fixture is the greeting client over real HTTP, with a real authorization
// server (the demo identities, the greeting client registered with this
// client's root) and a real fortune service.
type fixture struct {
	as      *authtest.Server
	fortune *fortuneFront
	fsrv    *httptest.Server
	g       *Server
	url     string
	logs    *syncbuf.Buffer
	offset  atomic.Int64 // of the client's token clock
}

func start(t testing.TB, change ...func(*authserver.Options)) *fixture {
	t.Helper()
	return startWith(t, nil, change...)
}

// startWith is start with the client's options changed by opts (nil: none);
// AuthURL is the server's unless opts sets an issuer or a discovery URL.
func startWith(t testing.TB, opts func(f *fixture, o *Options), change ...func(*authserver.Options)) *fixture {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	f := &fixture{url: "http://" + hs.Listener.Addr().String(), logs: &syncbuf.Buffer{}}
	f.as = authtest.Start(t, append([]func(*authserver.Options){func(o *authserver.Options) {
		o.Demo = &authserver.Demo{GreetingURL: f.url + "/"}
	}}, change...)...)
	fs, err := fortune.New(fortune.Options{AuthURL: f.as.URL})
	if err != nil {
		t.Fatal(err)
	}
	f.fortune = &fortuneFront{real: fs}
	f.fsrv = httptest.NewServer(f.fortune)
	t.Cleanup(f.fsrv.Close)
	o := Options{
		URL: f.url, FortuneURL: f.fsrv.URL,
		Logger: slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if opts != nil {
		opts(f, &o)
	}
	if o.Issuer == "" && o.DiscoveryURL == "" {
		o.AuthURL = f.as.URL
	}
	f.g, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	f.g.now = func() time.Time { return time.Now().Add(time.Duration(f.offset.Load())) }
	hs.Config.Handler = f.g
	hs.Start()
	t.Cleanup(hs.Close)
	return f
}

// advanceToExpiry moves the client's token clock to the expiry of b's
// access token.
func (f *fixture) advanceToExpiry(t testing.TB, b *authtest.Browser) {
	t.Helper()
	f.offset.Add(int64(f.tokens(t, b).expiry.Sub(f.g.now())))
}

// tokens is a copy of the tokens of b's session.
func (f *fixture) tokens(t testing.TB, b *authtest.Browser) tokenSet {
	t.Helper()
	s := f.session(t, b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		t.Fatal("the session is not signed in")
	}
	return *s.tokens
}

// signIn walks the whole flow in b: the redirect to the authorization
// server, sign-in and consent there, and the way back; it returns the
// answer of the way back (a redirect to the root).
func (f *fixture) signIn(t testing.TB, b *authtest.Browser) authtest.Reply {
	t.Helper()
	r := b.Get(f.url + "/")
	if r.Status != http.StatusFound {
		t.Fatalf("GET / without a session: %d %s", r.Status, r.Body)
	}
	back := b.Authorize(r.Location(t).String(), authtest.User, authtest.Password, true)
	r = b.Get(back.String())
	if r.Status != http.StatusFound || r.Header.Get("Location") != "/" {
		t.Fatalf("the way back: %d %q %s", r.Status, r.Header.Get("Location"), r.Body)
	}
	return r
}

// signedIn is a browser that went through signIn.
func (f *fixture) signedIn(t testing.TB) *authtest.Browser {
	t.Helper()
	b := authtest.NewBrowser(t)
	f.signIn(t, b)
	return b
}

// session is the client's session of browser b.
func (f *fixture) session(t testing.TB, b *authtest.Browser) *session {
	t.Helper()
	u, _ := url.Parse(f.url)
	for _, c := range b.Client.Jar.Cookies(u) {
		if c.Name == cookieName {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.AddCookie(c)
			if s := f.g.sessions.get(req); s != nil {
				return s
			}
		}
	}
	t.Fatal("the browser has no session")
	return nil
}

// page fetches the root as JSON.
func (f *fixture) page(t testing.TB, b *authtest.Browser) (authtest.Reply, map[string]any) {
	t.Helper()
	r := b.Get(f.url+"/", "application/json")
	if r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("not JSON: %d %s", r.Status, r.Body)
	}
	return r, r.JSON(t)
}

var csrfPattern = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfPattern.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no sign-out form in:\n%s", page)
	}
	return m[1]
}
