package greeting

import (
	"context"
	"net/http"
)

// callback is the authorization server sending the browser back to the
// root with ?code=...&state=... or ?error=...&state=... (spec 3.1, "code
// issued"). The state must be the session's pending one, or nothing is
// done: no token request is made for a code the browser did not ask for.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var p *pendingLogin
	sess := s.sessions.get(r)
	if sess != nil {
		p = sess.takePending(q.Get("state"))
	}
	if p == nil {
		s.log.Warn("callback refused: the state is not this browser's sign-in", "has_session", sess != nil)
		s.renderError(w, r, http.StatusBadRequest, nil, "Sign-in not completed",
			"This sign-in was not started here, or it was started in another tab or has expired. Please try again.")
		return
	}
	if code := q.Get("error"); code != "" {
		s.authorizationRefused(w, r, code, q.Get("error_description"))
		return
	}
	if q.Get("code") == "" {
		s.renderError(w, r, http.StatusBadRequest, nil, "Sign-in not completed", "The authorization server sent no code back. Please try again.")
		return
	}
	tokens, user, err := s.signIn(r.Context(), q.Get("code"), p)
	if err != nil {
		s.log.Warn("sign-in failed", "err", err)
		s.renderError(w, r, http.StatusBadGateway, nil, "Sign-in failed",
			"The authorization server did not give this application a valid token. Please try again.")
		return
	}
	s.sessions.remove(sess) // a new session id once signed in: no session fixation
	signed := s.sessions.create(w)
	signed.mu.Lock()
	signed.tokens, signed.user = tokens, user
	signed.mu.Unlock()
	s.log.Info("signed in", "user", user)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusFound) // a reload must not replay the code
}

// authorizationRefused renders the error the authorization server sent
// back: the user denied access (403), or the request failed there (502).
func (s *Server) authorizationRefused(w http.ResponseWriter, r *http.Request, code, description string) {
	if code == "access_denied" {
		s.renderError(w, r, http.StatusForbidden, nil, "Access denied",
			"You denied the greeting application access to your fortunes, so it has no fortune to show.")
		return
	}
	s.log.Warn("the authorization server refused the sign-in", "error", code, "error_description", description)
	s.renderError(w, r, http.StatusBadGateway, nil, "Sign-in failed",
		"The authorization server refused the sign-in ("+code+"). Please try again.")
}

// signIn exchanges the code, checks the ID token and finds the user's name.
func (s *Server) signIn(ctx context.Context, code string, p *pendingLogin) (*tokenSet, string, error) {
	tk, err := s.exchange(ctx, code, p.verifier)
	if err != nil {
		return nil, "", err
	}
	claims, err := s.idClaimsOf(ctx, tk, p.nonce)
	if err != nil {
		return nil, "", err
	}
	name, err := s.userName(ctx, tk.AccessToken)
	if err != nil || name == "" {
		s.log.Debug("no name from userinfo; using the ID token's", "err", err)
		name = claims.displayName()
	}
	return tokenSetOf(tk, nil, s.now()), name, nil
}
