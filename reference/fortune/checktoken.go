package fortune

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// maxAnswerBytes bounds what is read of an answer of the authorization
// server; a check_token result is well under 2 KiB.
const maxAnswerBytes = 64 << 10

// checkTokenValidator asks the authorization server about every token, as
// spec 5.3 says: POST {auth_url}/check_token (or the URL given), form field token, the fortune
// client's credentials in HTTP Basic. They are sent as they are, not
// form-encoded: UAA's resource servers (Spring's RemoteTokenServices) do so.
type checkTokenValidator struct {
	endpoint      endpoint
	clientID      string
	authorization string // the Basic credentials, encoded once
	client        *http.Client
	timeout       time.Duration
	answers       *decodedAnswers
}

func newCheckTokenValidator(opts Options, endpoint endpoint) *checkTokenValidator {
	return &checkTokenValidator{
		endpoint: endpoint, clientID: opts.ClientID, authorization: basicAuthorization(opts.ClientID, opts.ClientSecret),
		client: opts.HTTPClient, timeout: opts.Timeout, answers: newDecodedAnswers(),
	}
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
		info, err := v.answers.decode(body)
		if err != nil {
			return nil, &unavailableError{fmt.Errorf("check_token answered 200 with a body that is no token check result: %w", err)}
		}
		return info, nil
	case http.StatusBadRequest:
		return nil, badRequestAnswer(body)
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, &unavailableError{fmt.Errorf("check_token refused the fortune client %q (%d): check its id, secret and authz.resource authority", v.clientID, status)}
	}
	return nil, &unavailableError{fmt.Errorf("check_token answered %d", status)}
}

// post sends the token and reads the answer. The form is built by hand:
// url.Values{"token": {token}}.Encode() is the same string, with a map, a
// slice and a sort on every request.
func (v *checkTokenValidator) post(ctx context.Context, target, token string) (int, []byte, error) {
	return postForm(ctx, v.client, v.timeout, target, "token="+url.QueryEscape(token), v.authorization)
}

// basicAuthorization is the Authorization header of HTTP Basic
// credentials, as http.Request.SetBasicAuth writes it.
func basicAuthorization(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// postForm posts an encoded form to the authorization server with the Authorization header given, within
// timeout, and reads at most maxAnswerBytes of the answer: the one call check_token and introspection both
// make.
func postForm(ctx context.Context, client *http.Client, timeout time.Duration, target, form, authorization string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", authorization)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := httpx.ReadAll(resp.Body, resp.ContentLength, maxAnswerBytes)
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
