package authserver

import (
	"net/http"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/authserver/httpio"
)

// userInfo is the OpenID Connect user info, with UAA's fields;
// preferred_username is OpenID Connect's name for user_name.
type userInfo struct {
	Sub               string `json:"sub"`
	UserID            string `json:"user_id"`
	UserName          string `json:"user_name"`
	PreferredUsername string `json:"preferred_username"`
	GivenName         string `json:"given_name"`
	FamilyName        string `json:"family_name"`
	Name              string `json:"name"`
	Email             string `json:"email"`
	EmailVerified     bool   `json:"email_verified"`
}

// userinfo answers a bearer token with scope openid with its user, as the
// user is now (a changed e-mail shows at once).
func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) {
	httpio.NoStore(w)
	claims, ok := s.tokens.RequireScope(w, r, "openid")
	if !ok {
		return
	}
	u, ok := s.store.User(claims.UserID)
	if !ok {
		httpio.BearerChallenge(w, http.StatusUnauthorized, "invalid_token", "The token does not belong to a user", "")
		return
	}
	httpio.WriteJSON(w, http.StatusOK, userInfo{
		Sub: u.ID, UserID: u.ID, UserName: u.UserName, PreferredUsername: u.UserName,
		GivenName: u.GivenName, FamilyName: u.FamilyName,
		Name:  strings.TrimSpace(u.GivenName + " " + u.FamilyName),
		Email: u.Email, EmailVerified: u.Verified,
	})
}
