// Command loginconsent is the login and consent application of the example Ory Hydra deployment
// (examples/hydra). Hydra has no user store and no pages of its own: it sends the browser to this application
// with a login_challenge, then with a consent_challenge, and this application tells Hydra's admin API who signed
// in and which scopes were granted, as every Hydra deployment's login and consent application does:
//
//   - GET  /login?login_challenge=...      asks Hydra for the login request; a sign-in form (or, when Hydra
//     says skip, accepts at once with the subject Hydra already knows);
//   - POST /login                          checks the user name and password against the built-in users; a
//     wrong one shows the form again with an error, a right one accepts the login request;
//   - GET  /consent?consent_challenge=...  asks Hydra for the consent request; a page with the requested scopes
//     as checkboxes, Allow and Deny (or, when Hydra says skip, accepts at once);
//   - POST /consent                        Allow grants the ticked scopes the user may hold, Deny rejects the
//     request with access_denied;
//   - GET  /error?error=...                Hydra's urls.error: where Hydra sends the browser when it cannot send
//     it back to the client (an unregistered redirect_uri, an unknown client_id); the error, answered 400 (500
//     for server_error, 503 for temporarily_unavailable).
//
// The group policy is the application's, not Hydra's: only members of the group fortunes.read may be granted the
// scope fortunes.read; it is never offered to anyone else, and it is taken out of what is granted even if a
// request says otherwise. The ID token (and so userinfo) carries email, email_verified, name and
// preferred_username.
//
// Logins and consents are not remembered (remember=false): every authorization request shows the sign-in and
// the consent page. The challenges are bound to the browser by Hydra's own CSRF cookies, which Hydra checks when
// the browser comes back to it.
//
// Flags (or environment): -host (HOST, 127.0.0.1), -port (PORT, 9120), -hydra-admin-url (HYDRA_ADMIN_URL,
// http://127.0.0.1:9131). It logs "login-consent listening on http://HOST:PORT" when it accepts connections.
package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// GroupFortunesRead is the group whose members may be granted the scope of the same name.
const GroupFortunesRead = "fortunes.read"

// User is an account of the built-in user list.
type User struct {
	Subject  string // the subject Hydra puts in tokens (sub)
	Username string
	Password string
	Email    string
	Name     string
	Groups   []string
}

// Users are the accounts of this example deployment; the conformance suite's fixtures name them.
var Users = []User{
	{Subject: "6f1c1f2e-8f3b-4c59-9d7e-3a2b8c4d5e01", Username: "alice", Password: "alice-password",
		Email: "alice@example.org", Name: "Alice Example", Groups: []string{GroupFortunesRead}},
	{Subject: "0b7d2c9a-5e4f-4a3b-8c1d-9e8f7a6b5c02", Username: "bob", Password: "bob-password",
		Email: "bob@example.org", Name: "Bob Example"},
}

// authenticate returns the user whose name and password these are. Every password is compared, in constant
// time, so that the answer takes as long for an unknown name as for a wrong password.
func authenticate(users []User, username, password string) (User, bool) {
	var found User
	ok := false
	for _, u := range users {
		nameOK := subtle.ConstantTimeCompare([]byte(u.Username), []byte(username)) == 1
		passOK := subtle.ConstantTimeCompare([]byte(u.Password), []byte(password)) == 1
		if nameOK && passOK {
			found, ok = u, true
		}
	}
	return found, ok
}

func userBySubject(users []User, subject string) (User, bool) {
	for _, u := range users {
		if u.Subject == subject {
			return u, true
		}
	}
	return User{}, false
}

// allowed tells whether the user may be granted the scope: fortunes.read needs the group of that name, every
// other scope the client may ask for is the client's business (Hydra checks the client's registered scopes).
func allowed(u User, scope string) bool {
	if scope == GroupFortunesRead {
		return slices.Contains(u.Groups, GroupFortunesRead)
	}
	return true
}

// App serves the login and consent pages and talks to Hydra's admin API.
type App struct {
	Admin *url.URL // Hydra's admin API, e.g. http://127.0.0.1:9131
	HTTP  *http.Client
	Users []User
	Log   *slog.Logger
}

// Handler routes the application's pages.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", a.loginPage)
	mux.HandleFunc("POST /login", a.loginSubmit)
	mux.HandleFunc("GET /consent", a.consentPage)
	mux.HandleFunc("POST /consent", a.consentSubmit)
	mux.HandleFunc("GET /error", errorPage)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		render(w, http.StatusOK, "message", pageData{Title: "Login and consent",
			Message: "This is the login and consent application of an Ory Hydra deployment: Hydra sends browsers here."})
	})
	return mux
}

// The parts of Hydra's login and consent requests (admin API, /admin/oauth2/auth/requests/...) this application
// reads.
type oauthClient struct {
	ClientID   string `json:"client_id"`
	ClientName string `json:"client_name"`
}

type loginRequest struct {
	Challenge      string      `json:"challenge"`
	Skip           bool        `json:"skip"`
	Subject        string      `json:"subject"`
	Client         oauthClient `json:"client"`
	RequestedScope []string    `json:"requested_scope"`
}

type consentRequest struct {
	Challenge                    string      `json:"challenge"`
	Skip                         bool        `json:"skip"`
	Subject                      string      `json:"subject"`
	Client                       oauthClient `json:"client"`
	RequestedScope               []string    `json:"requested_scope"`
	RequestedAccessTokenAudience []string    `json:"requested_access_token_audience"`
}

// redirectTo is Hydra's answer to an accept or reject: where the browser goes next.
type redirectTo struct {
	RedirectTo string `json:"redirect_to"`
}

type pageData struct {
	Title     string
	Message   string
	Error     string
	Challenge string
	Username  string
	Client    string
	Scopes    []string // offered, each a ticked checkbox
	Refused   []string // requested, not available to this user
}

var pages = template.Must(template.New("layout").Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:32em;margin:3em auto}label{display:block;margin:.5em 0}.error{color:#a00}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{end}}
{{define "tail"}}</body>
</html>
{{end}}
{{define "message"}}{{template "head" .}}<p>{{.Message}}</p>
{{template "tail" .}}{{end}}
{{define "login"}}{{template "head" .}}{{if .Client}}<p>Sign in to continue to {{.Client}}.</p>
{{end}}{{if .Error}}<p class="error" role="alert">{{.Error}}</p>
{{end}}<form method="post" action="/login">
<input type="hidden" name="login_challenge" value="{{.Challenge}}">
<label>Username <input type="text" name="username" value="{{.Username}}" autocomplete="username" required autofocus></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
{{template "tail" .}}{{end}}
{{define "consent"}}{{template "head" .}}<p>{{.Client}} asks for access to your account ({{.Username}}):</p>
<form method="post" action="/consent">
<input type="hidden" name="consent_challenge" value="{{.Challenge}}">
{{range .Scopes}}<label><input type="checkbox" name="grant_scope" value="{{.}}" checked> {{.}}</label>
{{end}}{{if .Refused}}<p>Not available to your account: {{range $i, $s := .Refused}}{{if $i}} {{end}}{{$s}}{{end}}</p>
{{end}}<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>
{{template "tail" .}}{{end}}
`))

func render(w http.ResponseWriter, status int, name string, d pageData) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, d); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (a *App) fail(w http.ResponseWriter, status int, msg string, err error) {
	a.Log.Error(msg, "err", err)
	render(w, status, "message", pageData{Title: "Error", Message: msg})
}

// errorPage shows an error of an authorization request that Hydra could not return to the client (RFC 6749
// 4.1.2.1: the user is told, the browser is not sent to an unregistered redirect URI). Hydra's own fallback page
// answers 500 whatever the error; this one answers 400 for the errors of the request.
func errorPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	code := q.Get("error")
	status := http.StatusBadRequest
	switch code {
	case "server_error":
		status = http.StatusInternalServerError
	case "temporarily_unavailable":
		status = http.StatusServiceUnavailable
	}
	msg := "The request could not be completed."
	if code != "" {
		msg = code + ": " + q.Get("error_description")
		if hint := q.Get("error_hint"); hint != "" {
			msg += " " + hint
		}
	}
	render(w, status, "message", pageData{Title: "Error", Message: msg})
}

func clientName(c oauthClient) string {
	if c.ClientName != "" {
		return c.ClientName
	}
	return c.ClientID
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("login_challenge")
	if challenge == "" {
		render(w, http.StatusBadRequest, "message", pageData{Title: "Error", Message: "This page needs a login_challenge: start at the client."})
		return
	}
	var lr loginRequest
	if err := a.admin(r.Context(), http.MethodGet, "login", challenge, nil, &lr); err != nil {
		a.fail(w, http.StatusBadGateway, "Hydra does not know this login request.", err)
		return
	}
	if lr.Skip {
		// Hydra authenticated this browser already (a remembered login): accept with the subject it knows.
		a.acceptLogin(w, r, challenge, lr.Subject)
		return
	}
	render(w, http.StatusOK, "login", pageData{Title: "Sign in", Challenge: challenge, Client: clientName(lr.Client)})
}

func (a *App) loginSubmit(w http.ResponseWriter, r *http.Request) {
	challenge := r.PostFormValue("login_challenge")
	if challenge == "" {
		render(w, http.StatusBadRequest, "message", pageData{Title: "Error", Message: "The form has no login_challenge."})
		return
	}
	username := r.PostFormValue("username")
	u, ok := authenticate(a.Users, username, r.PostFormValue("password"))
	if !ok {
		var lr loginRequest
		if err := a.admin(r.Context(), http.MethodGet, "login", challenge, nil, &lr); err != nil {
			a.fail(w, http.StatusBadGateway, "Hydra does not know this login request.", err)
			return
		}
		a.Log.Info("sign-in refused", "username", username)
		render(w, http.StatusOK, "login", pageData{Title: "Sign in", Challenge: challenge, Client: clientName(lr.Client),
			Username: username, Error: "Invalid username or password."})
		return
	}
	a.Log.Info("signed in", "username", u.Username, "subject", u.Subject)
	a.acceptLogin(w, r, challenge, u.Subject)
}

func (a *App) acceptLogin(w http.ResponseWriter, r *http.Request, challenge, subject string) {
	body := map[string]any{"subject": subject, "remember": false, "amr": []string{"pwd"}}
	var next redirectTo
	if err := a.admin(r.Context(), http.MethodPut, "login/accept", challenge, body, &next); err != nil {
		a.fail(w, http.StatusBadGateway, "Hydra refused the login.", err)
		return
	}
	http.Redirect(w, r, next.RedirectTo, http.StatusFound)
}

// offer splits the requested scopes into those the user may grant and those the user may not hold.
func offer(u User, requested []string) (offered, refused []string) {
	for _, s := range requested {
		if allowed(u, s) {
			offered = append(offered, s)
		} else {
			refused = append(refused, s)
		}
	}
	return offered, refused
}

func (a *App) consentRequest(ctx context.Context, challenge string) (consentRequest, User, error) {
	var cr consentRequest
	if err := a.admin(ctx, http.MethodGet, "consent", challenge, nil, &cr); err != nil {
		return cr, User{}, err
	}
	u, ok := userBySubject(a.Users, cr.Subject)
	if !ok {
		return cr, User{}, fmt.Errorf("no user has the subject %q", cr.Subject)
	}
	return cr, u, nil
}

func (a *App) consentPage(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("consent_challenge")
	if challenge == "" {
		render(w, http.StatusBadRequest, "message", pageData{Title: "Error", Message: "This page needs a consent_challenge: start at the client."})
		return
	}
	cr, u, err := a.consentRequest(r.Context(), challenge)
	if err != nil {
		a.fail(w, http.StatusBadGateway, "Hydra does not know this consent request.", err)
		return
	}
	offered, refused := offer(u, cr.RequestedScope)
	if cr.Skip {
		// Hydra says the user consented before (or the client is trusted): grant what may be granted.
		a.acceptConsent(w, r, cr, u, offered)
		return
	}
	render(w, http.StatusOK, "consent", pageData{Title: "Allow access", Challenge: challenge, Client: clientName(cr.Client),
		Username: u.Username, Scopes: offered, Refused: refused})
}

func (a *App) consentSubmit(w http.ResponseWriter, r *http.Request) {
	challenge := r.PostFormValue("consent_challenge")
	if challenge == "" {
		render(w, http.StatusBadRequest, "message", pageData{Title: "Error", Message: "The form has no consent_challenge."})
		return
	}
	if r.PostFormValue("action") != "allow" {
		body := map[string]any{"error": "access_denied", "error_description": "The user denied the request.", "status_code": http.StatusForbidden}
		var next redirectTo
		if err := a.admin(r.Context(), http.MethodPut, "consent/reject", challenge, body, &next); err != nil {
			a.fail(w, http.StatusBadGateway, "Hydra refused the denial.", err)
			return
		}
		a.Log.Info("consent denied", "challenge", challenge)
		http.Redirect(w, r, next.RedirectTo, http.StatusFound)
		return
	}
	cr, u, err := a.consentRequest(r.Context(), challenge)
	if err != nil {
		a.fail(w, http.StatusBadGateway, "Hydra does not know this consent request.", err)
		return
	}
	// Grant the ticked boxes that were requested and that this user may hold, whatever else the form says.
	var grant []string
	for _, s := range r.PostForm["grant_scope"] {
		if slices.Contains(cr.RequestedScope, s) && allowed(u, s) && !slices.Contains(grant, s) {
			grant = append(grant, s)
		}
	}
	a.acceptConsent(w, r, cr, u, grant)
}

func (a *App) acceptConsent(w http.ResponseWriter, r *http.Request, cr consentRequest, u User, grant []string) {
	if grant == nil {
		grant = []string{}
	}
	audience := cr.RequestedAccessTokenAudience
	if audience == nil {
		audience = []string{}
	}
	body := map[string]any{
		"grant_scope":                 grant,
		"grant_access_token_audience": audience,
		"remember":                    false,
		"session": map[string]any{
			// Claims of the ID token, which Hydra's userinfo endpoint also answers.
			"id_token": map[string]any{
				"email": u.Email, "email_verified": true, "name": u.Name, "preferred_username": u.Username,
			},
		},
	}
	var next redirectTo
	if err := a.admin(r.Context(), http.MethodPut, "consent/accept", cr.Challenge, body, &next); err != nil {
		a.fail(w, http.StatusBadGateway, "Hydra refused the consent.", err)
		return
	}
	a.Log.Info("consent given", "username", u.Username, "client", cr.Client.ClientID, "grant_scope", strings.Join(grant, " "))
	http.Redirect(w, r, next.RedirectTo, http.StatusFound)
}

// admin calls Hydra's admin API at /admin/oauth2/auth/requests/{path}?{login|consent}_challenge=..., sending body
// as JSON when it is not nil and decoding the answer into out.
func (a *App) admin(ctx context.Context, method, path, challenge string, body, out any) error {
	kind, _, _ := strings.Cut(path, "/")
	u := a.Admin.JoinPath("/admin/oauth2/auth/requests", path)
	u.RawQuery = url.Values{kind + "_challenge": {challenge}}.Encode()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, u.Path, resp.Status, bytes.TrimSpace(data))
	}
	return json.Unmarshal(data, out)
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	defPort, err := strconv.Atoi(env("PORT", "9120"))
	if err != nil {
		log.Error("PORT is not a number", "err", err)
		os.Exit(2)
	}
	host := flag.String("host", env("HOST", "127.0.0.1"), "address to listen on (HOST)")
	port := flag.Int("port", defPort, "port to listen on (PORT)")
	adminURL := flag.String("hydra-admin-url", env("HYDRA_ADMIN_URL", "http://127.0.0.1:9131"), "Hydra's admin API (HYDRA_ADMIN_URL)")
	flag.Parse()
	admin, err := url.Parse(*adminURL)
	if err != nil || (admin.Scheme != "http" && admin.Scheme != "https") || admin.Host == "" {
		log.Error("-hydra-admin-url must be an http(s) URL", "url", *adminURL)
		os.Exit(2)
	}
	app := &App{Admin: admin, HTTP: &http.Client{Timeout: 10 * time.Second}, Users: Users, Log: log}

	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		log.Error("cannot listen", "err", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: app.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info(fmt.Sprintf("login-consent listening on http://%s", ln.Addr()), "hydra_admin", admin.String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("serve", "err", err)
		os.Exit(1)
	}
}
