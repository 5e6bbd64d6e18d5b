package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// fakeOP is a small OpenID provider whose behaviour a test chooses, to show that the steps judge each
// behaviour of real servers rightly: a sign-in page on another origin (Hydra), an issuer with a trailing slash
// (zitadel), refresh tokens only for offline_access, scopes granted short, one client authentication method
// per endpoint, introspection that calls every token inactive.
type fakeOP struct {
	issuerSlash       bool   // the issuer ends with "/"
	loginElsewhere    bool   // the sign-in page lives on another origin
	consent           bool   // a consent page after sign-in
	rememberConsent   bool   // a consent given once is not asked again
	refresh           string // "always", "offline" (only with offline_access, which discovery lists) or "never"
	noRefreshGrant    bool   // discovery does not list the grant refresh_token
	drop              string // a scope never granted
	postOnly          bool   // clients authenticate with form fields only, everywhere
	unlisted          bool   // discovery lists no method for revocation and introspection (Hydra)
	revokeRefuses     bool   // revocation refuses every client's credentials
	authorizePage     string // "fails": the authorization endpoint answers 500; "no-form": a page without a sign-in form
	neverActive       bool   // introspection calls every token inactive
	errorAfterSignIn  bool   // a 500 once signed in
	accessTokenExpiry int
	scopeArray        bool // the token response's scope is a JSON array, not a space-separated string
	noIDToken         bool // the token response carries no id_token
	// replay is what a code used a second time gets: "" invalid_grant (the tokens issued from it stay active),
	// "accepted" new tokens, "revokes" invalid_grant and the tokens issued from it revoked.
	replay string

	t                       *testing.T
	srv, login              *httptest.Server
	mu                      sync.Mutex
	requests                map[string]url.Values // authorization requests by id
	codes                   map[string]url.Values // code -> the request it answers
	used                    map[string]bool       // codes exchanged once
	issuedFrom              map[string][]string   // code -> the access tokens issued from it
	revoked                 map[string]bool
	approved                map[string]bool
	n                       int
	revocations, introspect int
	tokens                  []string // the access tokens issued, in order
}

const (
	fakeClient, fakeSecret, fakeRedirect = "tck-web", "web-secret", "https://tck-web.client.invalid/cb"
	fakeUser, fakePassword               = "alice", "alice-password"
)

func startFakeOP(t *testing.T, op *fakeOP) *fakeOP {
	t.Helper()
	op.t, op.requests, op.codes, op.revoked, op.approved = t, map[string]url.Values{}, map[string]url.Values{}, map[string]bool{}, map[string]bool{}
	op.used, op.issuedFrom = map[string]bool{}, map[string][]string{}
	if op.refresh == "" {
		op.refresh = "always"
	}
	mux := http.NewServeMux()
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	op.login = op.srv
	login := mux
	if op.loginElsewhere {
		login = http.NewServeMux()
		op.login = httptest.NewServer(login)
		t.Cleanup(op.login.Close)
	}
	mux.HandleFunc("GET /.well-known/openid-configuration", op.discovery)
	mux.HandleFunc("GET /authorize", op.authorize)
	mux.HandleFunc("POST /token", op.token)
	mux.HandleFunc("POST /introspect", op.introspection)
	mux.HandleFunc("POST /revoke", op.revoke)
	mux.HandleFunc("GET /userinfo", op.userinfo)
	login.HandleFunc("GET /login", op.loginPage)
	login.HandleFunc("POST /login", op.signIn)
	login.HandleFunc("POST /consent", op.consentDecision)
	return op
}

func (op *fakeOP) issuer() string {
	if op.issuerSlash {
		return op.srv.URL + "/"
	}
	return op.srv.URL
}

func (op *fakeOP) discovery(w http.ResponseWriter, _ *http.Request) {
	methods := []string{target.ClientSecretBasic, target.ClientSecretPost}
	if op.postOnly {
		methods = []string{target.ClientSecretPost}
	}
	scopes := []string{"openid", "fortunes.read"}
	if op.refresh == "offline" {
		scopes = append(scopes, "offline_access")
	}
	grants := []string{"authorization_code", "refresh_token"}
	if op.noRefreshGrant {
		grants = grants[:1]
	}
	doc := map[string]any{"issuer": op.issuer(), "authorization_endpoint": op.srv.URL + "/authorize",
		"token_endpoint": op.srv.URL + "/token", "introspection_endpoint": op.srv.URL + "/introspect",
		"revocation_endpoint": op.srv.URL + "/revoke", "userinfo_endpoint": op.srv.URL + "/userinfo", "scopes_supported": scopes,
		"grant_types_supported":                         grants,
		"token_endpoint_auth_methods_supported":         methods,
		"revocation_endpoint_auth_methods_supported":    methods,
		"introspection_endpoint_auth_methods_supported": methods}
	if op.unlisted {
		delete(doc, "revocation_endpoint_auth_methods_supported")
		delete(doc, "introspection_endpoint_auth_methods_supported")
	}
	writeJSON(w, http.StatusOK, doc)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (op *fakeOP) authorize(w http.ResponseWriter, r *http.Request) {
	switch op.authorizePage {
	case "fails":
		http.Error(w, "the session store is down", http.StatusInternalServerError)
		return
	case "no-form":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><p>Sign in with your company account</p><a href="/sso">Continue</a></body></html>`)
		return
	}
	q := r.URL.Query()
	if q.Get("client_id") != fakeClient || q.Get("redirect_uri") != fakeRedirect {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `<html><head><title>Error</title><style>body{color:red}</style></head><body><p>unknown client or redirect_uri</p></body></html>`)
		return
	}
	op.mu.Lock()
	op.n++
	id := fmt.Sprint(op.n)
	op.requests[id] = q
	op.mu.Unlock()
	http.Redirect(w, r, op.login.URL+"/login?req="+id, http.StatusFound)
}

func (op *fakeOP) loginPage(w http.ResponseWriter, r *http.Request) {
	op.form(w, r.URL.Query().Get("req"), "")
}

func (op *fakeOP) form(w http.ResponseWriter, id, message string) {
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, `<html><body><p>%s</p><form method="post" action="/login"><input type="hidden" name="req" value="%s">
<input type="text" name="username"><input type="password" name="password"><button type="submit">Sign in</button></form></body></html>`,
		html.EscapeString(message), id)
}

func (op *fakeOP) signIn(w http.ResponseWriter, r *http.Request) {
	id := r.PostFormValue("req")
	if r.PostFormValue("username") != fakeUser || r.PostFormValue("password") != fakePassword {
		op.form(w, id, "wrong password")
		return
	}
	if op.errorAfterSignIn {
		http.Error(w, "Internal Server Error: the session store is down", http.StatusInternalServerError)
		return
	}
	op.mu.Lock()
	asked := op.consent && !op.approved[fakeUser]
	op.mu.Unlock()
	if asked {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><form method="post" action="/consent"><input type="hidden" name="req" value="%s">
<p>Allow tck-web to read your fortunes?</p><button name="decision" value="allow">Allow</button><button name="decision" value="deny">Deny</button></form></body></html>`, id)
		return
	}
	op.issueCode(w, r, id)
}

func (op *fakeOP) consentDecision(w http.ResponseWriter, r *http.Request) {
	id := r.PostFormValue("req")
	op.mu.Lock()
	q := op.requests[id]
	if r.PostFormValue("decision") == "allow" && op.rememberConsent {
		op.approved[fakeUser] = true
	}
	op.mu.Unlock()
	if r.PostFormValue("decision") != "allow" {
		http.Redirect(w, r, fakeRedirect+"?error=access_denied&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		return
	}
	op.issueCode(w, r, id)
}

func (op *fakeOP) issueCode(w http.ResponseWriter, r *http.Request, id string) {
	op.mu.Lock()
	q := op.requests[id]
	code := "code-" + core.RandomID()
	op.codes[code] = q
	op.mu.Unlock()
	http.Redirect(w, r, fakeRedirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
}

// clientOK authenticates the client as the server allows.
func (op *fakeOP) clientOK(r *http.Request) bool {
	id, secret, basic := r.BasicAuth()
	if basic {
		return !op.postOnly && id == fakeClient && secret == fakeSecret
	}
	return r.PostFormValue("client_id") == fakeClient && r.PostFormValue("client_secret") == fakeSecret
}

func (op *fakeOP) token(w http.ResponseWriter, r *http.Request) {
	if !op.clientOK(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var scope []string
	code := r.PostFormValue("code")
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		op.mu.Lock()
		q, ok := op.codes[code]
		if ok && op.used[code] {
			switch op.replay {
			case "accepted":
			case "revokes":
				for _, t := range op.issuedFrom[code] {
					op.revoked[t] = true
				}
				ok = false
			default:
				ok = false
			}
		}
		op.used[code] = true
		op.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		scope = strings.Fields(q.Get("scope"))
	case "refresh_token":
		if !strings.HasPrefix(r.PostFormValue("refresh_token"), "rt-") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		scope = []string{"openid", "fortunes.read"}
	}
	scope = slices.DeleteFunc(scope, func(s string) bool { return s == op.drop })
	claims, _ := json.Marshal(map[string]any{"sub": "user-1", "iss": op.issuer(), "aud": fakeClient})
	access := "at-" + core.RandomID()
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "scope": strings.Join(scope, " "),
		"expires_in": cmpInt(op.accessTokenExpiry, 300), "id_token": "e30." + base64.RawURLEncoding.EncodeToString(claims) + ".sig"}
	if op.scopeArray {
		resp["scope"] = scope
	}
	if op.noIDToken {
		delete(resp, "id_token")
	}
	op.mu.Lock()
	if code != "" {
		op.issuedFrom[code] = append(op.issuedFrom[code], access)
	}
	op.tokens = append(op.tokens, access)
	op.mu.Unlock()
	if op.refresh == "always" || (op.refresh == "offline" && slices.Contains(scope, "offline_access")) {
		resp["refresh_token"] = "rt-" + core.RandomID()
	}
	writeJSON(w, http.StatusOK, resp)
}

func cmpInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func (op *fakeOP) introspection(w http.ResponseWriter, r *http.Request) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.introspect++
	if !op.clientOK(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	active := !op.neverActive && !op.revoked[r.PostFormValue("token")]
	writeJSON(w, http.StatusOK, map[string]any{"active": active})
}

// userinfo answers the subject to a bearer token the server issued and did not revoke.
func (op *fakeOP) userinfo(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	op.mu.Lock()
	ok := slices.Contains(op.tokens, tok) && !op.revoked[tok]
	op.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"sub": "user-1"})
}

func (op *fakeOP) revoke(w http.ResponseWriter, r *http.Request) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.revocations++
	if !op.clientOK(r) || op.revokeRefuses {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	op.revoked[r.PostFormValue("token")] = true
}

// env is a target of the fake provider with fixtures; the check_token surface is missing, as Preflight
// would find it.
func (op *fakeOP) env() Env {
	env := envOf(target.Services{AuthServer: &target.AuthServer{Issuer: op.issuer(), Fixtures: &target.Fixtures{
		Users: target.Users{Reader: &target.User{Username: fakeUser, Password: fakePassword, Email: "alice@example.org"}},
		Clients: target.Clients{
			Web: &target.Client{ClientID: fakeClient, ClientSecret: fakeSecret, RedirectURI: fakeRedirect},
			// One client is also the resource client, as a server needs that answers introspection only to
			// the token's audience.
			Resource: &target.Client{ClientID: fakeClient, ClientSecret: fakeSecret},
		},
	}}})
	// The sign-in page on another origin is declared, as a login application's is.
	env.Target.AllowedOrigins = []string{op.login.URL}
	return env
}

// suite runs Preflight on the fake provider.
func (op *fakeOP) suite(env Env) (*Server, error) {
	s := newServer(env)
	return s, s.Preflight(context.Background())
}

// scenarioSteps are the flow and token steps of one scenario of the suite, bound as InitializeScenario binds
// them.
func scenarioSteps(s *Server) *checkTokenSteps {
	c := s.newScenario()
	ids := newIdentitySteps(s, c)
	return &checkTokenSteps{Scenario: c, flow: &flowSteps{Scenario: c, srv: s, ids: ids}}
}

// Env is, for these tests, the target as the suite gets it.
type Env struct{ Target *target.Target }

// envOf is an Env of a target that declares these services and nothing else.
func envOf(svcs target.Services) Env { return Env{Target: &target.Target{Services: svcs}} }

// newServer is the auth area of a run against the env's target.
func newServer(env Env) *Server { return New(core.NewRun(env.Target)) }
