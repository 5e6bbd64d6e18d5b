package fortune

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

// maxAnswerBytes bounds what is read of an answer of the authorization
// server; a check_token result is well under 2 KiB.
const maxAnswerBytes = 64 << 10

// checkTokenValidator asks the authorization server about every token, as
// spec 5.3 says: POST {auth_url}/check_token (or the URL given), form field token, the fortune
// client's credentials in HTTP Basic. They are sent as they are, not
// form-encoded: UAA's resource servers (Spring's RemoteTokenServices) do so.
type checkTokenValidator struct {
	endpoint         endpoint
	clientID, secret string
	client           *http.Client
	timeout          time.Duration
}

func (v *checkTokenValidator) validate(ctx context.Context, token string) (*tokenInfo, error) {
	target, err := v.endpoint(ctx)
	if err != nil {
		return nil, &unavailableError{err}
	}
	status, body, err := v.post(ctx, target, token)
	if err != nil {
		return nil, &unavailableError{err}
	}
	switch status {
	case http.StatusOK:
		var info tokenInfo
		if err := json.Unmarshal(body, &info); err != nil {
			return nil, &unavailableError{fmt.Errorf("check_token answered 200 with a body that is no token check result: %w", err)}
		}
		return &info, nil
	case http.StatusBadRequest:
		return nil, badRequestAnswer(body)
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, &unavailableError{fmt.Errorf("check_token refused the fortune client %q (%d): check its id, secret and authz.resource authority", v.clientID, status)}
	}
	return nil, &unavailableError{fmt.Errorf("check_token answered %d", status)}
}

// post sends the token and reads the answer.
func (v *checkTokenValidator) post(ctx context.Context, target, token string) (int, []byte, error) {
	return postForm(ctx, v.client, v.timeout, target, url.Values{"token": {token}}, v.clientID, v.secret)
}

// postForm posts a form to the authorization server with HTTP Basic credentials, within timeout, and reads
// at most maxAnswerBytes of the answer: the one call check_token and introspection both make.
func postForm(ctx context.Context, client *http.Client, timeout time.Duration, target string, form url.Values, user, password string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(user, password)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer of %s: %w", target, err)
	}
	return resp.StatusCode, body, nil
}

// badRequestAnswer reads a 400 of check_token: invalid_token is a refused
// token (UAA answers 400, not 401, for every invalid token); any other 400
// is the fortune service's own mistake.
func badRequestAnswer(body []byte) error {
	var e errorBody
	if err := json.Unmarshal(body, &e); err != nil || e.Error != "invalid_token" {
		return &unavailableError{errors.New("check_token answered 400 " + quotable(string(body)))}
	}
	if e.Description == "" {
		e.Description = "Token was not recognised"
	}
	return invalidToken(e.Description)
}
