package greeting

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// errSignedOut is a refresh token the authorization server no longer
// accepts (expired, revoked): the user has to sign in again.
var errSignedOut = errors.New("the refresh token is no longer accepted")

// fortuneError is why there is no fortune, in words for the page; the
// cause goes to the log.
type fortuneError struct {
	message string
	cause   error
}

func (e *fortuneError) Error() string {
	if e.cause == nil {
		return e.message
	}
	return e.message + ": " + e.cause.Error()
}
func (e *fortuneError) Unwrap() error { return e.cause }

// fortuneFor fetches a fortune with the session's access token, renewing
// the token first when it has expired, or once when the fortune service
// answers 401 (the service may know better than our clock). sess.mu is
// held.
func (s *Server) fortuneFor(ctx context.Context, sess *session) (string, error) {
	renewed := false
	if sess.tokens.expired(s.now()) {
		if err := s.renew(ctx, sess); err != nil {
			return "", err
		}
		renewed = true
	}
	status, text, err := s.fetchFortune(ctx, sess.tokens.access)
	if err == nil && status == http.StatusUnauthorized && !renewed {
		if err := s.renew(ctx, sess); err != nil {
			return "", err
		}
		status, text, err = s.fetchFortune(ctx, sess.tokens.access)
	}
	return fortuneOf(status, text, err)
}

// renew replaces the session's tokens with the refresh grant's; sess.mu is
// held.
func (s *Server) renew(ctx context.Context, sess *session) error {
	if sess.tokens.refresh == "" {
		return errSignedOut
	}
	tk, err := s.refresh(ctx, sess.tokens.refresh)
	var oe *oauthError
	switch {
	case errors.As(err, &oe) && (oe.code == "invalid_grant" || oe.code == "invalid_token"):
		return errSignedOut
	case err != nil:
		return &fortuneError{"The access token expired and could not be renewed: the authorization server is not available", err}
	}
	sess.tokens = tokenSetOf(tk, sess.tokens, s.now())
	s.log.Debug("access token renewed", "user", sess.user)
	return nil
}

// fetchFortune GETs the fortune service's root with the access token.
func (s *Server) fetchFortune(ctx context.Context, accessToken string) (int, string, error) {
	status, body, err := s.call(ctx, http.MethodGet, s.opts.FortuneURL+"/", accessToken, nil)
	return status, strings.TrimSpace(string(body)), err
}

// fortuneOf turns the fortune service's answer into a fortune or an error
// that says, in words, what went wrong.
func fortuneOf(status int, text string, err error) (string, error) {
	switch {
	case err != nil:
		return "", &fortuneError{"The fortune service cannot be reached", err}
	case status == http.StatusOK && text != "":
		return text, nil
	case status == http.StatusOK:
		return "", &fortuneError{"The fortune service answered an empty fortune", nil}
	case status == http.StatusUnauthorized:
		return "", &fortuneError{"The fortune service refused the access token, even after it was renewed", nil}
	case status == http.StatusForbidden:
		return "", &fortuneError{"The fortune service refused: your access does not include reading fortunes (fortunes.read). Sign out, then allow it when you sign in again", nil}
	}
	return "", &fortuneError{fmt.Sprintf("The fortune service failed (status %d)", status), nil}
}
