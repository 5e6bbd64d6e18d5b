package hostile

import (
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The authorization server: discovery, an authorization endpoint with a sign-in page and a consent page, a
// token endpoint (authorization code and refresh token grants) and user information. Done right, a flow
// through it works for the fixtures; each Behaviour spoils a part.

// authRequest is an authorization request the server took.
type authRequest struct {
	redirectURI, state, scope string
}

func (s *Server) routeAuth(mux *http.ServeMux) {
	mux.HandleFunc("GET /.well-known/openid-configuration", s.discovery)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("/login", s.login)
	mux.HandleFunc("POST /consent", s.consent)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /userinfo", s.userinfo)
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"keys": []any{}})
	})
}

func (s *Server) discovery(w http.ResponseWriter, _ *http.Request) {
	userinfo := s.URL + "/userinfo"
	if s.b.DiscoveryAway {
		userinfo = s.Undeclared.URL + "/latest/meta-data/iam/security-credentials/"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
		"userinfo_endpoint": userinfo, "jwks_uri": s.URL + "/jwks",
		"scopes_supported": []string{"openid", "fortunes.read"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case s.b.SilentAuthorize:
		s.stall(r)
		return
	case s.b.AuthorizeAway:
		http.Redirect(w, r, s.Undeclared.URL+"/login?"+r.URL.RawQuery, http.StatusFound)
		return
	case q.Get("client_id") != ClientID:
		s.page(w, http.StatusBadRequest, "Unknown client", "<p>no client "+html.EscapeString(q.Get("client_id"))+s.escapes()+"</p>")
		return
	case q.Get("redirect_uri") != RedirectURI:
		s.page(w, http.StatusBadRequest, "Bad redirect URI", "<p>redirect_uri is not registered"+s.escapes()+"</p>")
		return
	case s.b.Escapes && q.Get("scope") != "openid fortunes.read":
		back := url.Values{"error": {"invalid_scope"}, "error_description": {"scope refused" + escapes}, "state": {q.Get("state")}}
		http.Redirect(w, r, RedirectURI+"?"+back.Encode(), http.StatusFound)
		return
	}
	id := newID("req-")
	s.mu.Lock()
	s.requests[id] = authRequest{redirectURI: q.Get("redirect_uri"), state: q.Get("state"), scope: q.Get("scope")}
	s.mu.Unlock()
	s.signInPage(w, id, "")
}

// signInPage is a sign-in form whose password field is named pw, sent with GET when GETSignIn.
func (s *Server) signInPage(w http.ResponseWriter, id, note string) {
	method := "post"
	if s.b.GETSignIn {
		method = "get"
	}
	s.page(w, http.StatusOK, "Sign in", fmt.Sprintf(`<p>%s</p><form method="%s" action="/login">
<input type="hidden" name="req" value="%s"><input type="text" name="user"><input type="password" name="pw">
<button type="submit">Sign in</button></form>`, html.EscapeString(note), method, id))
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	id := r.FormValue("req")
	if _, ok := s.request(id); !ok {
		s.page(w, http.StatusBadRequest, "Error", "<p>unknown request</p>")
		return
	}
	if r.FormValue("user") != User || r.FormValue("pw") != Password {
		s.signInPage(w, id, "Wrong user name or password")
		return
	}
	echo := ""
	if s.b.Echo {
		echo = fmt.Sprintf(`<p>Signed in as %s with the password %s</p><input type="hidden" name="pw_echo" value="%s">`,
			User, Password, Password)
	}
	s.page(w, http.StatusOK, "Authorize", fmt.Sprintf(`<form method="post" action="/consent">
<input type="hidden" name="req" value="%s">%s<p>Allow access to openid fortunes.read?</p>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></form>`, id, echo))
}

func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	req, ok := s.request(r.FormValue("req"))
	if !ok {
		s.page(w, http.StatusBadRequest, "Error", "<p>unknown request</p>")
		return
	}
	back := url.Values{"state": {req.state}}
	if r.FormValue("decision") == "allow" {
		code := newID("code-")
		s.mu.Lock()
		s.codes[code] = req
		s.mu.Unlock()
		back.Set("code", code)
	} else {
		back.Set("error", "access_denied")
		back.Set("error_description", "the user said no"+s.escapes())
	}
	http.Redirect(w, r, req.redirectURI+"?"+back.Encode(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	} else {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	}
	if id != ClientID || secret != ClientSecret {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client", "error_description": "who are you" + s.escapes()})
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		req, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		s.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
			return
		}
		at, rt := newID("hostile-at-"), newID("hostile-rt-")
		s.mu.Lock()
		s.tokens = append(s.tokens, at, rt)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "refresh_token": rt,
			"token_type": "bearer", "expires_in": 3600, "scope": req.scope})
	case "refresh_token":
		if s.b.Echo {
			s.echo(w, r, Password)
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
	}
}

func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) {
	if s.b.Echo {
		s.echo(w, r, Password)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sub": User, "preferred_username": User, "email": Email})
}

// echo answers 500 with a page that repeats the request, its Authorization and its form, and a password.
func (s *Server) echo(w http.ResponseWriter, r *http.Request, password string) {
	var b strings.Builder
	fmt.Fprintf(&b, "<p>Internal error%s</p><pre>Authorization: %s\n", s.escapes(), html.EscapeString(r.Header.Get("Authorization")))
	for _, k := range slices.Sorted(maps.Keys(r.PostForm)) { // sorted: the tests read the last field
		fmt.Fprintf(&b, "%s=%s\n", html.EscapeString(k), html.EscapeString(strings.Join(r.PostForm[k], ",")))
	}
	fmt.Fprintf(&b, "the password is %s</pre>", password)
	s.page(w, http.StatusInternalServerError, "Error", b.String())
}

// Tokens are the access and refresh tokens the server issued: secrets, which no output of a run may show.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...)
}

func (s *Server) request(id string) (authRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.requests[id]
	return req, ok
}

// escapes is what Escapes adds to a text.
func (s *Server) escapes() string {
	if s.b.Escapes {
		return escapes
	}
	return ""
}

// page writes an HTML page, padded with PageFlood bytes.
func (s *Server) page(w http.ResponseWriter, status int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s", title, body)
	pad(w, s.b.PageFlood)
	fmt.Fprint(w, "</body></html>")
}

// pad writes n bytes of an HTML comment, in pieces.
func pad(w http.ResponseWriter, n int) {
	if n <= 0 {
		return
	}
	chunk := strings.Repeat("x", 32<<10)
	fmt.Fprint(w, "<!--")
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := fmt.Fprint(w, chunk[:k]); err != nil {
			return
		}
		n -= k
	}
	fmt.Fprint(w, "-->")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
