package store

import (
	"maps"
	"slices"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/token/jwt"
)

// Session is what fosite keeps with every code and token: the signed-in
// User (empty for a client's own token), when they signed in and the nonce
// of the authorization request. The embedded openid.DefaultSession carries
// the ID token claims and the expiry times fosite sets.
type Session struct {
	openid.DefaultSession
	UserID     string
	UserName   string
	Email      string
	GivenName  string
	FamilyName string
	AuthTime   time.Time
	Nonce      string
}

// NewClientSession is the session of a client_credentials request; fosite
// fills in the expiry.
func NewClientSession() *Session {
	return &Session{DefaultSession: openid.DefaultSession{Headers: &jwt.Headers{}, Claims: &jwt.IDTokenClaims{}}}
}

// NewUserSession is the session of an authorization: the ID token claims
// are complete except for what fosite adds (iss, aud, exp, iat, nonce).
func NewUserSession(u *User, authTime time.Time, nonce string) *Session {
	return &Session{
		DefaultSession: openid.DefaultSession{
			Subject:  u.ID,
			Username: u.UserName,
			Headers:  &jwt.Headers{},
			Claims: &jwt.IDTokenClaims{
				Subject:     u.ID,
				AuthTime:    authTime,
				RequestedAt: time.Now().UTC(),
				Extra: map[string]any{
					"user_id":   u.ID,
					"user_name": u.UserName,
					// OpenID Connect's standard claim for user_name.
					"preferred_username": u.UserName,
					"email":              u.Email,
					"given_name":         u.GivenName,
					"family_name":        u.FamilyName,
					"origin":             OriginUAA,
					"zid":                ZoneID,
				},
			},
		},
		UserID:     u.ID,
		UserName:   u.UserName,
		Email:      u.Email,
		GivenName:  u.GivenName,
		FamilyName: u.FamilyName,
		AuthTime:   authTime,
		Nonce:      nonce,
	}
}

// Clone copies everything fosite may change later (expiry map, ID token
// claims), so a stored session never shares state with a request in flight.
func (s *Session) Clone() fosite.Session {
	if s == nil {
		return nil
	}
	c := *s
	c.ExpiresAt = maps.Clone(s.ExpiresAt)
	if s.Claims != nil {
		claims := *s.Claims
		claims.Audience = slices.Clone(claims.Audience)
		claims.AuthenticationMethodsReferences = slices.Clone(claims.AuthenticationMethodsReferences)
		claims.Extra = maps.Clone(claims.Extra)
		c.Claims = &claims
	}
	if s.Headers != nil {
		h := *s.Headers
		h.Extra = maps.Clone(h.Extra)
		c.Headers = &h
	}
	return &c
}

// SessionOf returns r's session if it is one of ours.
func SessionOf(r fosite.Requester) (*Session, bool) {
	s, ok := r.GetSession().(*Session)
	return s, ok && s != nil
}
