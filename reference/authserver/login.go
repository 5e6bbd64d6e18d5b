package authserver

import (
	"context"
	"crypto/rand"
	"net/http"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/authserver/pages"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

const (
	csrfField      = "X-Uaa-Csrf" // UAA's name for the forms' CSRF field
	badCredentials = "Unable to verify username or password. Please try again."
)

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
	u, refused := s.authenticate(r, name, r.PostFormValue("password"))
	if refused != nil {
		s.pages.Login(w, refused.status, pages.LoginData{Title: "Sign in", CSRF: v.CSRF, Username: name, Error: refused.message})
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

// checkPassword returns u when password is its password. Without an active
// user it costs a bcrypt comparison too (against a dummy hash), so timing
// does not tell which user names exist.
func (s *Server) checkPassword(ctx context.Context, u *store.User, password string) (*store.User, bool) {
	if u == nil || !u.Active {
		_ = s.hasher.Compare(ctx, s.dummyHash(), []byte(password))
		return nil, false
	}
	if s.hasher.Compare(ctx, u.PasswordHash, []byte(password)) != nil {
		return nil, false
	}
	return u, true
}

// dummyHash is a bcrypt hash nobody knows the secret of, made on first use.
func (s *Server) dummyHash() []byte {
	s.dummyOnce.Do(func() {
		s.dummy, _ = s.hasher.Hash(context.Background(), []byte(rand.Text()))
	})
	return s.dummy
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
