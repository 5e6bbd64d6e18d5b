package greeting

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
	"github.com/fortune-tck/fortune-tck/reference/internal/oidcdisco"
)

// Server is the greeting client; it is an http.Handler.
type Server struct {
	opts        Options
	redirectURI string
	log         *slog.Logger
	sessions    *sessionStore
	now         func() time.Time // the clock of token expiry; tests move it, not the sessions' one
	provider    *oidcdisco.Provider
	keys        *idTokenKeys // nil for a UAA-shaped server: ID token signatures are not checked
}

// New builds the client. It makes no call to the authorization server or
// the fortune service: the services of a stack may start in any order.
func New(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, redirectURI: opts.URL + "/", log: opts.Logger, now: time.Now,
		sessions: newSessionStore(strings.HasPrefix(opts.URL, "https://"), time.Now),
	}
	if opts.Issuer != "" || opts.DiscoveryURL != "" {
		s.provider = oidcdisco.Discovered(opts.HTTPClient, opts.DiscoveryURL, opts.Issuer, opts.Timeout)
		s.keys = &idTokenKeys{}
	} else {
		s.provider = oidcdisco.Fixed(oidcdisco.UAA(opts.AuthURL))
	}
	return s, nil
}

// Discover fetches the discovery document now, when the endpoints come
// from one, and checks it lists what the client needs (authorization,
// token and JWKS endpoints). An error names the document's URL and the
// fault. Serving does not need it: the first sign-in fetches the document
// (New makes no call, so a stack may start in any order), and a failed
// fetch is retried a second later at the earliest.
func (s *Server) Discover(ctx context.Context) error {
	_, err := s.metadata(ctx)
	return err
}

// metadata are the authorization server's endpoints, with those the
// client cannot do without checked.
func (s *Server) metadata(ctx context.Context) (*oidcdisco.Metadata, error) {
	m, err := s.provider.Metadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("greeting: %w", err)
	}
	needed := []string{"authorization_endpoint", "token_endpoint"}
	if s.keys != nil {
		needed = append(needed, "jwks_uri")
	}
	for _, field := range needed {
		if _, err := m.Endpoint(field); err != nil {
			return nil, fmt.Errorf("greeting: %w", err)
		}
	}
	return m, nil
}

// issuer is the issuer ID tokens must carry: Options.Issuer, else the
// discovered one, else UAA's AuthURL/oauth/token.
func (s *Server) issuer(m *oidcdisco.Metadata) string { return cmp.Or(s.opts.Issuer, m.Issuer) }

// RedirectURI is the client's redirect URI, its root: register it at the
// authorization server.
func (s *Server) RedirectURI() string { return s.redirectURI }

// ServeHTTP routes by hand: two paths, each with its methods (405 with
// Allow otherwise), and a page for any other path (404).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.Logged(s.log, w, r, s.route)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			s.home(w, r)
			return
		}
		s.methodNotAllowed(w, r, "GET, HEAD")
	case "/logout":
		if r.Method == http.MethodPost {
			s.logout(w, r)
			return
		}
		s.methodNotAllowed(w, r, "POST")
	default:
		s.renderError(w, r, http.StatusNotFound, nil, "Not found", "There is no page at "+r.URL.Path+".")
	}
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	s.renderError(w, r, http.StatusMethodNotAllowed, nil, "Method not allowed", r.Method+" is not supported here.")
}
