package authserver

import (
	"net/http"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/authserver/pages"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// csrfField is UAA's name for the forms' CSRF field.
const csrfField = "X-Uaa-Csrf"

// home says who is signed in; it is where sign-in ends when no
// authorization request is waiting.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	data := pages.HomeData{Title: "Authorization server"}
	if v, ok := s.browsers.Current(r); ok && v.UserID != "" {
		if u, ok := s.store.User(v.UserID); ok {
			data.UserName = u.UserName
		}
	}
	s.pages.Home(w, http.StatusOK, data)
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	v := s.browsers.Ensure(w, r)
	s.pages.Login(w, http.StatusOK, pages.LoginData{Title: "Sign in", CSRF: v.CSRF})
}

// loginSubmit checks the sign-in form, then resumes the authorization
// request that sent the browser here (or goes home).
func (s *Server) loginSubmit(w http.ResponseWriter, r *http.Request) {
	v, ok := s.browsers.Current(r)
	if !ok || !v.ValidCSRF(r.PostFormValue(csrfField)) {
		v = s.browsers.Ensure(w, r)
		s.pages.Login(w, http.StatusForbidden, pages.LoginData{Title: "Sign in", CSRF: v.CSRF,
			Error: "Your sign-in form has expired. Please sign in again."})
		return
	}
	name := strings.TrimSpace(r.PostFormValue("username"))
	u, refused := s.accounts.Authenticate(r, name, r.PostFormValue("password"))
	if refused != nil {
		s.pages.Login(w, refused.Status, pages.LoginData{Title: "Sign in", CSRF: v.CSRF, Username: name, Error: refused.Message})
		return
	}
	s.log.Info("signed in", "username", u.UserName, "user_id", u.ID)
	v = s.browsers.SignIn(w, r, v, u.ID)
	target := s.browsers.TakeReturnTo(v.ID)
	if target == "" {
		target = "/"
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	s.browsers.SignOut(w, r)
	http.Redirect(w, r, "/login", http.StatusFound)
}

// signedInUser returns the browser's user, if it signed in and the user
// still exists and is active.
func (s *Server) signedInUser(r *http.Request) (pages.Session, *store.User, bool) {
	v, ok := s.browsers.Current(r)
	if !ok || v.UserID == "" {
		return v, nil, false
	}
	u, ok := s.store.User(v.UserID)
	if !ok || !u.Active {
		return v, nil, false
	}
	return v, u, true
}
