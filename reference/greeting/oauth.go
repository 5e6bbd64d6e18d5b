package greeting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxAnswerBytes bounds what is read of an answer of another service.
const maxAnswerBytes = 64 << 10

// tokenResponse is a successful answer of the token endpoint.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"` // granted scopes, space-separated; absent when as requested
}

// oauthError is an error answer of the token endpoint (RFC 6749 section
// 5.2).
type oauthError struct {
	status            int
	code, description string
}

func (e *oauthError) Error() string {
	return fmt.Sprintf("the token endpoint answered %d %s: %s", e.status, e.code, e.description)
}

// exchange trades an authorization code for tokens, with the PKCE verifier.
func (s *Server) exchange(ctx context.Context, code, verifier string) (*tokenResponse, error) {
	return s.tokenRequest(ctx, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {s.redirectURI},
		"code_verifier": {verifier},
	})
}

// refresh trades a refresh token for a new access token.
func (s *Server) refresh(ctx context.Context, refreshToken string) (*tokenResponse, error) {
	return s.tokenRequest(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}})
}

// tokenRequest posts form to the token endpoint with the client's id and
// secret as form fields: the greeting client's authentication is "form"
// (spec 4.1, 5.2).
func (s *Server) tokenRequest(ctx context.Context, form url.Values) (*tokenResponse, error) {
	m, err := s.metadata(ctx)
	if err != nil {
		return nil, err
	}
	form.Set("client_id", s.opts.ClientID)
	form.Set("client_secret", s.opts.ClientSecret)
	status, body, err := s.call(ctx, http.MethodPost, m.TokenEndpoint, "", form)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e) // a body that is no RFC 6749 error leaves the code empty
		return nil, &oauthError{status: status, code: e.Error, description: e.Description}
	}
	var tk tokenResponse
	if err := json.Unmarshal(body, &tk); err != nil || tk.AccessToken == "" || !strings.EqualFold(tk.TokenType, "bearer") {
		return nil, errors.New("the token endpoint answered 200 without a bearer access token")
	}
	return &tk, nil
}

// tokenSetOf keeps what a token response gives; a response without a new
// refresh token keeps the old one.
func tokenSetOf(tk *tokenResponse, old *tokenSet, now time.Time) *tokenSet {
	ts := &tokenSet{access: tk.AccessToken, refresh: tk.RefreshToken}
	if ts.refresh == "" && old != nil {
		ts.refresh = old.refresh
	}
	if tk.ExpiresIn > 0 {
		ts.expiry = now.Add(time.Duration(tk.ExpiresIn) * time.Second)
	}
	return ts
}

// userName asks the userinfo endpoint for the user's name: "name", else
// "user_name" (UAA), else "preferred_username" (OpenID Connect).
func (s *Server) userName(ctx context.Context, accessToken string) (string, error) {
	m, err := s.metadata(ctx)
	if err != nil {
		return "", err
	}
	endpoint, err := m.Endpoint("userinfo_endpoint")
	if err != nil {
		return "", err
	}
	status, body, err := s.call(ctx, http.MethodGet, endpoint, accessToken, nil)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("userinfo answered %d", status)
	}
	var info struct {
		Name              string `json:"name"`
		UserName          string `json:"user_name"`
		PreferredUserName string `json:"preferred_username"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", fmt.Errorf("userinfo: %w", err)
	}
	return firstNonBlank(info.Name, info.UserName, info.PreferredUserName), nil
}

// revoke revokes a token (RFC 7009), and with it its grant.
func (s *Server) revoke(ctx context.Context, token string) error {
	m, err := s.metadata(ctx)
	if err != nil {
		return err
	}
	endpoint, err := m.Endpoint("revocation_endpoint")
	if err != nil {
		return err
	}
	status, _, err := s.call(ctx, http.MethodPost, endpoint, "", url.Values{
		"token": {token}, "client_id": {s.opts.ClientID}, "client_secret": {s.opts.ClientSecret},
	})
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("revocation answered %d", status)
	}
	return err
}

// call sends a request to another service within the timeout: a form POST
// when form is set, with a bearer token when bearer is set. It returns the
// status and the (bounded) body.
func (s *Server) call(ctx context.Context, method, target, bearer string, form url.Values) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return 0, nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer of %s: %w", target, err)
	}
	return resp.StatusCode, answer, nil
}

func firstNonBlank(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
