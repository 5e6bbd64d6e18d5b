package greeting

import (
	"errors"
	"net/http"
)

// home is GET /: the callback of a sign-in, the start of one, or the page
// with a fortune.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("code") || q.Has("error") || q.Has("state") {
		s.callback(w, r)
		return
	}
	sess := s.sessions.get(r)
	if sess == nil || !s.showFortune(w, r, sess) {
		s.startLogin(w, r, sess)
	}
}

// showFortune renders the page with a fortune, or with why there is none
// (502: the page works, a service behind it does not). A refresh token that
// is no longer accepted starts a new sign-in. It returns false, having
// written nothing, when the session is not signed in.
func (s *Server) showFortune(w http.ResponseWriter, r *http.Request, sess *session) bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if !sess.signedIn() {
		return false
	}
	fortune, err := s.fortuneFor(r.Context(), sess)
	view := &viewer{user: sess.user, csrf: sess.csrf}
	var fe *fortuneError
	switch {
	case errors.Is(err, errSignedOut):
		s.log.Info("signed out: the refresh token is no longer accepted", "user", sess.user)
		s.sessions.remove(sess)
		sess.tokens = nil
		s.startLogin(w, r, nil)
	case errors.As(err, &fe):
		s.log.Warn("no fortune", "user", sess.user, "err", err)
		s.renderError(w, r, http.StatusBadGateway, view, "No fortune today", fe.message+".")
	case err != nil:
		s.log.Error("no fortune", "user", sess.user, "err", err)
		s.renderError(w, r, http.StatusBadGateway, view, "No fortune today", "Something went wrong while fetching your fortune.")
	default:
		s.renderFortune(w, r, view, fortune)
	}
	return true
}
