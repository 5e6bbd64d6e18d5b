// Package authtest starts the reference authorization server for the tests
// of the services that talk to it over HTTP (the fortune service, the
// greeting client), and plays the parts those tests need: the administrator
// who provisions users and clients, and a browser that signs in and
// consents. Only tests import it.
package authtest

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"golang.org/x/crypto/bcrypt"
)

// Demo identities of the authorization server.
const (
	User             = authserver.DemoUserName
	Password         = authserver.DemoUserPassword
	GreetingID       = authserver.GreetingClientID
	GreetingSecret   = authserver.GreetingClientSecret
	FortuneID        = authserver.FortuneClientID
	FortuneSecret    = authserver.FortuneClientSecret
	GreetingRedirect = authserver.DefaultGreetingURL
)

// Key is the one signing key of every test server: generating 2048-bit RSA
// keys is slow, and servers that share it sign tokens with the same kid.
var Key = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return k
})

// Server is a running authorization server with the demo identities. It
// counts requests by path, and can be told to answer every request with
// one status, as a failing server would.
type Server struct {
	*authserver.Server
	URL string

	mu    sync.Mutex
	calls map[string]int
	fail  atomic.Int32
	hs    *httptest.Server
}

// Start runs a server on a free port until the test ends; change adjusts
// its options (the demo seed, token lifetimes).
func Start(t testing.TB, change ...func(*authserver.Options)) *Server {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	s := &Server{URL: "http://" + hs.Listener.Addr().String(), calls: make(map[string]int), hs: hs}
	opts := authserver.Options{URL: s.URL, SigningKey: Key(), HashCost: bcrypt.MinCost, Demo: &authserver.Demo{}}
	for _, c := range change {
		c(&opts)
	}
	as, err := authserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Server = as
	hs.Config.Handler = http.HandlerFunc(s.serve)
	hs.Start()
	t.Cleanup(hs.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls[r.URL.Path]++
	s.mu.Unlock()
	if status := int(s.fail.Load()); status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	s.Server.ServeHTTP(w, r)
}

// Calls is how many requests reached path.
func (s *Server) Calls(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

// FailWith makes every request answer status; 0 serves normally again.
func (s *Server) FailWith(status int) { s.fail.Store(int32(status)) }

// Close stops the server: its URL refuses connections from then on.
func (s *Server) Close() { s.hs.Close() }
