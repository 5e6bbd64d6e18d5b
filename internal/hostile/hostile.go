// Package hostile is an implementation of the interface that misbehaves on purpose, for the tests of what the
// harness guarantees against any target (docs/safety.md). One Server plays an authorization server with
// fixtures, a greeting client, a fortune service, a configuration server and the git server of its
// repository, and next to it an undeclared server that no target file names: the stand-in for a cloud
// machine's metadata service, which counts every connection it gets.
//
// What it does wrong is chosen per server (Behaviour): redirects and discovery documents that point at the
// undeclared server, a sign-in form sent with GET with its password field named pw, pages and error pages
// that echo the password, the client secret and the tokens, escape sequences in error_description, floods of
// headers and of page bytes, an authorization endpoint that never answers, a greeting page that plants a
// download and asks the undeclared server for everything a page can ask, and git repositories that never
// answer, trickle, or list refs without end.
//
// Every server listens on 127.0.0.1 only, and every loop of it is bounded (by bytes, by time, and by Close).
package hostile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The fixtures of the hostile authorization server, which a target file names. The secrets are long enough
// to be masked (core.MinSecret) and unlike any word of the reports, so that a test finds them if they leak.
const (
	User         = "alice"
	Password     = "hostile-password-1f2e3d"
	Email        = "alice@hostile.test"
	ClientID     = "tck-web"
	ClientSecret = "hostile-client-secret-9c8b7a"
	RedirectURI  = "https://tck-web.client.invalid/callback"
	// RepoUser and RepoPassword are the credentials of the git repositories.
	RepoUser     = "tck"
	RepoPassword = "hostile-repo-password-6d5c"
	// MetadataSecret is what the undeclared server's metadata path serves.
	MetadataSecret = "METADATA-SECRET-4b3a2f1e"
)

// Behaviour is what a Server does wrong; the zero value does nothing wrong that a flow needs.
type Behaviour struct {
	// AuthorizeAway: the authorization endpoint sends the browser to a sign-in form of the undeclared server.
	AuthorizeAway bool
	// DiscoveryAway: the discovery document names its userinfo endpoint on the undeclared server.
	DiscoveryAway bool
	// SilentAuthorize: the authorization endpoint takes the request and never answers.
	SilentAuthorize bool
	// GETSignIn: the sign-in form is sent with GET, the password in the URL (its field is named pw either way).
	GETSignIn bool
	// Echo: the consent page shows the password in its text and in a hidden field; the refresh grant and the
	// user information answer 500 with a page that repeats the request (client secret, tokens, Authorization)
	// and the password.
	Echo bool
	// Escapes: error_description and error pages carry terminal escape sequences (a title change, a screen
	// clear, a bidirectional override), and every authorization request whose scope is not exactly
	// "openid fortunes.read" is sent back with one.
	Escapes bool
	// HeaderFlood is how many bytes of headers every answer carries besides its own.
	HeaderFlood int
	// PageFlood is how many bytes of padding every page carries, in a comment.
	PageFlood int
	// GreetingAway: the greeting client's page plants a download, asks the undeclared server for an image, a
	// frame, a fetch, a beacon, a worker and WebSockets, and then sends the browser there.
	GreetingAway bool
}

// Server is a hostile implementation, started by Start.
type Server struct {
	// URL is the authorization server's issuer, the fortune service's and the configuration server's base,
	// and the git server's: its repositories are URL/silent.git, URL/trickle.git and URL/endless.git.
	URL string
	// GreetingURL is the greeting client, on an origin of its own.
	GreetingURL string
	// Undeclared is the server no target file names.
	Undeclared *Undeclared

	b       Behaviour
	servers []*http.Server
	closed  chan struct{}
	once    sync.Once

	mu       sync.Mutex
	requests map[string]authRequest // authorization requests by id
	codes    map[string]authRequest // codes by value
	tokens   []string               // the tokens issued
}

// maxStall bounds how long a handler that never answers waits before it gives up anyway.
const maxStall = 2 * time.Minute

// Start starts a hostile implementation with the behaviour given, on 127.0.0.1.
func Start(b Behaviour) (*Server, error) {
	s := &Server{b: b, closed: make(chan struct{}), requests: map[string]authRequest{}, codes: map[string]authRequest{}}
	und, err := startUndeclared(s.closed)
	if err != nil {
		return nil, err
	}
	s.Undeclared = und
	s.servers = append(s.servers, und.srv)
	main := http.NewServeMux()
	s.routeAuth(main)
	s.routeGit(main)
	main.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hostile\n")) })
	if s.URL, err = s.serve(s.flood(main)); err != nil {
		s.Close()
		return nil, err
	}
	greeting := http.NewServeMux()
	s.routeGreeting(greeting)
	if s.GreetingURL, err = s.serve(s.flood(greeting)); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// serve serves h on a new loopback listener and returns its URL.
func (s *Server) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.servers = append(s.servers, srv)
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops every server, and every handler that stalls or trickles.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		for _, srv := range s.servers {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = srv.Shutdown(ctx)
			cancel()
			_ = srv.Close()
		}
	})
}

// stall waits until the server closes, the client goes or maxStall passes.
func (s *Server) stall(r *http.Request) {
	select {
	case <-s.closed:
	case <-r.Context().Done():
	case <-time.After(maxStall):
	}
}

// flood adds HeaderFlood bytes of headers to every answer, in values of 4 KiB.
func (s *Server) flood(h http.Handler) http.Handler {
	if s.b.HeaderFlood <= 0 {
		return h
	}
	value := strings.Repeat("f", 4<<10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for n, i := 0, 0; n < s.b.HeaderFlood; i++ {
			name := fmt.Sprintf("X-Flood-%d", i)
			v := value[:min(len(value), s.b.HeaderFlood-n)]
			w.Header().Set(name, v)
			n += len(name) + len(v) + 4
		}
		h.ServeHTTP(w, r)
	})
}

// escapes are what Escapes puts into error descriptions and pages: a window title, a screen clear, a cursor
// move, a bidirectional override, and a bell.
const escapes = "\x1b]0;pwned\x07\x1b[2J\x1b[H\u202eevil\x07"

// Undeclared is the server no target file names: the stand-in for a cloud machine's metadata service and for
// a login page somewhere else. It counts every connection and every request it gets.
type Undeclared struct {
	URL         string
	srv         *http.Server
	connections atomic.Int64
	requests    atomic.Int64
	mu          sync.Mutex
	seen        []string
}

// Hits is how many connections the undeclared server accepted: zero when nothing contacted it.
func (u *Undeclared) Hits() int64 { return u.connections.Load() }

// Seen are the requests it got, method and path, for a test's message.
func (u *Undeclared) Seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

func startUndeclared(closed <-chan struct{}) (*Undeclared, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	u := &Undeclared{URL: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("/latest/meta-data/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"Code":"Success","AccessKeyId":"AKIAHOSTILE","SecretAccessKey":%q}`, MetadataSecret)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><title>Sign in</title><p>%s</p><form method="post" action="/steal">`+
			`<input name="user"><input type="password" name="pw"><button>Sign in</button></form></html>`, MetadataSecret)
	})
	u.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.requests.Add(1)
		u.mu.Lock()
		if len(u.seen) < 100 {
			u.seen = append(u.seen, r.Method+" "+r.URL.Path)
		}
		u.mu.Unlock()
		mux.ServeHTTP(w, r)
	}), ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			u.connections.Add(1)
		}
	}}
	go func() { _ = u.srv.Serve(ln) }()
	go func() { <-closed; _ = u.srv.Close() }()
	return u, nil
}

// newID is a random identifier with a prefix.
func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
