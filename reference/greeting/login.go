package greeting

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// startLogin sends the browser to the authorization server (spec 3.1,
// "unauthenticated"): a code request with a fresh state bound to the
// session, a PKCE S256 challenge and a nonce. A new request replaces an
// unfinished one of the same session.
func (s *Server) startLogin(w http.ResponseWriter, r *http.Request, sess *session) {
	m, err := s.metadata(r.Context())
	if err != nil {
		s.log.Error("cannot find the authorization server", "err", err)
		s.renderError(w, r, http.StatusBadGateway, nil, "Sign-in not possible",
			"The authorization server cannot be found now. Please try again later.")
		return
	}
	if sess == nil {
		sess = s.sessions.create(w)
	}
	p := &pendingLogin{state: rand.Text(), verifier: rand.Text() + rand.Text(), nonce: rand.Text()}
	sess.mu.Lock()
	sess.pending, sess.tokens, sess.user = p, nil, ""
	sess.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, s.authorizeURL(m.AuthorizationEndpoint, p), http.StatusFound)
}

// authorizeURL is the authorization request of p at endpoint (which may
// have a query of its own).
func (s *Server) authorizeURL(endpoint string, p *pendingLogin) string {
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {s.opts.ClientID},
		"redirect_uri":          {s.redirectURI},
		"scope":                 {strings.Join(s.opts.Scopes, " ")},
		"state":                 {p.state},
		"nonce":                 {p.nonce},
		"code_challenge":        {s256(p.verifier)},
		"code_challenge_method": {"S256"},
	}
	u, _ := url.Parse(endpoint) // checked by discovery, or made of the checked AuthURL
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += q.Encode()
	return u.String()
}

// s256 is the PKCE S256 challenge of a verifier (RFC 7636 section 4.2).
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
