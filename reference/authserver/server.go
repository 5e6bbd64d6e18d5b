package authserver

import (
	"cmp"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ory/fosite"
	"golang.org/x/crypto/bcrypt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
	"github.com/fortune-tck/fortune-tck/reference/authserver/keys"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/pages"
	"github.com/fortune-tck/fortune-tck/reference/authserver/scim"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
	"github.com/fortune-tck/fortune-tck/reference/authserver/tokens"
	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// Defaults used when Options leaves a field empty.
const (
	DefaultAdminClientID     = "admin"
	DefaultAdminClientSecret = "adminsecret"
	DefaultAccessTokenTTL    = 12 * time.Hour  // UAA: 43200 s
	DefaultRefreshTokenTTL   = 720 * time.Hour // UAA: 2592000 s
	// DefaultCodeTTL is UAA's lifetime of an authorization code
	// (UaaTokenStore.DEFAULT_EXPIRATION_TIME, which uaa.yml does not set).
	DefaultCodeTTL = 5 * time.Minute
)

// Fixed values of this server.
const (
	resourceScope  = "authz.resource" // the authority that may call check_token
	adminScopeList = "scim.read scim.write clients.read clients.write"
)

// Options configures a Server.
type Options struct {
	// URL is the external base URL, e.g. http://localhost:9000, without a
	// path: the server answers at the root. The token issuer (iss) is URL +
	// "/oauth/token"; discovery names the endpoints under it.
	URL string
	// AdminClientID and AdminClientSecret register the administrator client
	// (client_credentials; scim.* and clients.* authorities). Defaults:
	// admin / adminsecret.
	AdminClientID, AdminClientSecret string
	// AccessTokenTTL and RefreshTokenTTL are token lifetimes (12h, 720h).
	AccessTokenTTL, RefreshTokenTTL time.Duration
	// CodeTTL is the lifetime of an authorization code (DefaultCodeTTL).
	CodeTTL time.Duration
	// SigningKey signs access and ID tokens; nil uses the newest key of the
	// store, generating a 2048-bit key when there is none. A given key is
	// stored as the newest one.
	SigningKey *rsa.PrivateKey
	// KeyRotation replaces the signing key with a new one when it is older
	// than this (0: never). Earlier keys stay in /token_keys, and verify,
	// until the tokens they signed have expired.
	KeyRotation time.Duration
	// Store keeps users, groups, clients, approvals, codes, tokens and
	// their revocations, and the signing keys (see package kv); nil keeps
	// them in this process's memory. The caller closes it.
	Store kv.Store
	// HashCost is the bcrypt cost of stored passwords and secrets
	// (bcrypt.DefaultCost when zero).
	HashCost int
	// Demo, when set, seeds the demo identities (see Demo).
	Demo *Demo
	// Lockout counts failed sign-ins in Store and locks a user name out
	// (UAA's lockoutPolicy; zero fields: UAA's defaults).
	Lockout accounts.LockoutPolicy
	// PasswordPolicy is checked on the passwords of users created through
	// POST /Users (UAA's passwordPolicy; zero: UAA's default).
	PasswordPolicy accounts.PasswordPolicy
	// Logger receives sign-ins, unexpected errors and debug request logs; nil
	// discards them.
	Logger *slog.Logger
}

// Server is the authorization server; it is an http.Handler.
type Server struct {
	log      *slog.Logger
	baseURL  string
	issuer   string
	store    *store.Store
	hasher   *accounts.Hasher
	accounts *accounts.Accounts
	keys     *keys.Ring
	tokens   *tokens.Strategy
	oauth    fosite.OAuth2Provider
	browsers *pages.Sessions
	pages    *pages.Site
	locks    *keyedLocks
	scim     *scim.API
	mux      *http.ServeMux
}

// New builds a server and registers the admin client (and the demo
// identities when opts.Demo is set).
func New(opts Options) (*Server, error) {
	base, err := normalizeBaseURL(opts.URL)
	if err != nil {
		return nil, err
	}
	if opts.AccessTokenTTL < 0 || opts.RefreshTokenTTL < 0 || opts.CodeTTL < 0 {
		return nil, errors.New("authserver: token and code lifetimes must not be negative")
	}
	if opts.HashCost != 0 && (opts.HashCost < bcrypt.MinCost || opts.HashCost > bcrypt.MaxCost) {
		return nil, fmt.Errorf("authserver: HashCost %d out of bcrypt's range %d to %d", opts.HashCost, bcrypt.MinCost, bcrypt.MaxCost)
	}
	if opts.KeyRotation < 0 {
		return nil, errors.New("authserver: the key rotation period must not be negative")
	}
	passwords, err := opts.PasswordPolicy.WithDefaults()
	if err != nil {
		return nil, err
	}
	lockoutPolicy, err := opts.Lockout.WithDefaults()
	if err != nil {
		return nil, err
	}
	log := orDiscard(opts.Logger)
	db := opts.Store
	if db == nil {
		db = kv.NewMemory()
	}
	st := store.New(db, log)
	if err := st.Migrate(); err != nil {
		return nil, fmt.Errorf("authserver: store %s: migrating: %w", db, err)
	}
	ring, err := keys.Open(st, opts.SigningKey, opts.KeyRotation,
		max(cmp.Or(opts.AccessTokenTTL, DefaultAccessTokenTTL), cmp.Or(opts.CodeTTL, DefaultCodeTTL)), log)
	if err != nil {
		return nil, err
	}
	secret, err := keys.HMACSecret(st)
	if err != nil {
		return nil, err
	}
	hasher := accounts.NewHasher(cmp.Or(opts.HashCost, bcrypt.DefaultCost))
	s := &Server{
		log:      log,
		baseURL:  base,
		issuer:   base + "/oauth/token",
		hasher:   hasher,
		keys:     ring,
		store:    st,
		browsers: pages.NewSessions(strings.HasPrefix(base, "https://")),
		locks:    newKeyedLocks(),

		accounts: accounts.New(st, hasher, accounts.NewLockout(st, secret, lockoutPolicy), log),
	}
	if s.pages, err = pages.Load(log); err != nil {
		return nil, err
	}
	s.buildProvider(opts, secret)
	s.scim = scim.New(st, s.accounts, s.tokens, passwords, log)
	if err := s.seed(opts); err != nil {
		return nil, err
	}
	s.mux = s.routes()
	return s, nil
}

// Issuer is the iss of every token: the token endpoint address.
func (s *Server) Issuer() string { return s.issuer }

// ServeHTTP bounds the request body, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.Logged(s.log, w, r, func(w http.ResponseWriter, r *http.Request) {
		if httpio.LimitBody(w, r) {
			s.mux.ServeHTTP(w, r)
		}
	})
}

func (s *Server) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /healthz", healthz)
	m.HandleFunc("GET /{$}", s.home)
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login.do", s.loginSubmit)
	m.HandleFunc("GET /logout.do", s.logout)
	m.HandleFunc("GET /oauth/authorize", s.authorize)
	m.HandleFunc("POST /oauth/authorize", s.authorize)
	m.HandleFunc("POST /oauth/token", s.token)
	m.HandleFunc("POST /check_token", s.checkToken)
	m.HandleFunc("GET /userinfo", s.userinfo)
	m.HandleFunc("POST /userinfo", s.userinfo)
	m.HandleFunc("POST /introspect", s.introspect)
	m.HandleFunc("POST /oauth/revoke", s.revoke)
	m.HandleFunc("GET /token_keys", s.tokenKeys)
	m.HandleFunc("GET /token_key", s.tokenKey)
	m.HandleFunc("GET /.well-known/openid-configuration", s.discovery)
	m.HandleFunc("GET /oauth/token/.well-known/openid-configuration", s.discovery)
	m.HandleFunc("POST /Users", s.scim.CreateUser)
	m.HandleFunc("GET /Users", s.scim.ListUsers)
	m.HandleFunc("DELETE /Users/{id}", s.scim.DeleteUser)
	m.HandleFunc("POST /Groups", s.scim.CreateGroup)
	m.HandleFunc("GET /Groups", s.scim.ListGroups)
	m.HandleFunc("DELETE /Groups/{id}", s.scim.DeleteGroup)
	m.HandleFunc("POST /Groups/{id}/members", s.scim.AddMember)
	m.HandleFunc("POST /oauth/clients", s.scim.CreateClient)
	m.HandleFunc("GET /oauth/clients", s.scim.ListClients)
	m.HandleFunc("GET /oauth/clients/{id}", s.scim.GetClient)
	m.HandleFunc("DELETE /oauth/clients/{id}", s.scim.DeleteClient)
	return m
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// normalizeBaseURL checks the external URL and drops a trailing slash, so
// that issuer and endpoint addresses are built by plain concatenation.
func normalizeBaseURL(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("authserver: the external URL is required (e.g. http://localhost:9000)")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("authserver: invalid URL %q; want http(s)://host[:port][/path]", raw)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("authserver: invalid URL %q; the server answers at the root: no path, query, fragment or user info", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// logUnexpected logs an error that is the server's fault (a 5xx); errors
// of the caller are answered, not logged.
func (s *Server) logUnexpected(op string, err error) {
	if rfc := fosite.ErrorToRFC6749Error(err); rfc.CodeField >= http.StatusInternalServerError {
		s.log.Error(op, "err", rfc.Error(), "debug", rfc.DebugField)
	}
}
