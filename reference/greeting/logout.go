package greeting

import (
	"net/http"
)

// maxFormBytes bounds the sign-out form.
const maxFormBytes = 16 << 10

// csrfField is the sign-out form's CSRF token field.
const csrfField = "csrf_token"

// logout is POST /logout, the page's sign-out button: with the session's
// CSRF token it forgets the session, revokes its refresh token (and so its
// grant) at the authorization server, and sends the browser to the root.
// The user stays signed in at the authorization server, so the next visit
// may go through without a password: single sign-out is not in the spec.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	sess := s.sessions.get(r)
	if sess == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	sent := r.PostFormValue(csrfField) // "" for a body that does not parse
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if !equalSecrets(sess.csrf, sent) {
		s.renderError(w, r, http.StatusForbidden, &viewer{user: sess.user, csrf: sess.csrf}, "Not signed out",
			"The sign-out form was not sent from this application's page. Use the Sign out button below.")
		return
	}
	s.sessions.delete(w, sess)
	if sess.tokens != nil && sess.tokens.refresh != "" {
		if err := s.revoke(r.Context(), sess.tokens.refresh); err != nil {
			s.log.Warn("cannot revoke the tokens at sign-out", "user", sess.user, "err", err)
		}
	}
	sess.tokens = nil
	s.log.Info("signed out", "user", sess.user)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
