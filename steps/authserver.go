package steps

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cucumber/godog"
)

// authState is what a scenario knows of the authorization server: tokens, secrets and ids it created, and the
// browser of its user.
type authState struct {
	adminToken string
	secrets    map[string]string // client id -> secret
	userIDs    map[string]string // user name -> id
	browser    *browser
	client     string // the client of the flow under way
	redirect   string
	state      string
	verifier   string
	code       string
	tokens     map[string]any // the last successful token response
	refreshed  []string       // refresh tokens in the order they were used
}

func (w *world) registerAuthServerSteps(sc *godog.ScenarioContext) {
	w.registerProvisioningSteps(sc)
	w.registerFlowSteps(sc)
	w.registerCheckTokenSteps(sc)
}

func (w *world) authServer() (*AuthServer, error) {
	as := w.suite.env.AuthServer
	if as == nil {
		return nil, fmt.Errorf("the target declares no authServer")
	}
	return as, nil
}

// authRequest sends a request to the authorization server and keeps the exchange.
func (w *world) authRequest(method, path string, body []byte, contentType string, auth func(*http.Request)) error {
	as, err := w.authServer()
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, as.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if auth != nil {
		auth(req)
	}
	return w.do(req)
}

func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func basic(id, secret string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret)) }
}

func (w *world) postJSON(path string, v any, auth func(*http.Request)) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.authRequest(http.MethodPost, path, body, "application/json", auth)
}

func (w *world) postForm(path string, form url.Values, auth func(*http.Request)) error {
	return w.authRequest(http.MethodPost, path, []byte(form.Encode()), "application/x-www-form-urlencoded", auth)
}

// clientCredentialsToken gets a token for a client with the client credentials grant.
func (w *world) clientCredentialsToken(id, secret string) (string, error) {
	if err := w.postForm("/oauth/token", url.Values{"grant_type": {"client_credentials"}}, basic(id, secret)); err != nil {
		return "", err
	}
	if w.last.status != http.StatusOK {
		return "", w.failf("the client credentials grant for %s answered %d", id, w.last.status)
	}
	v, err := w.last.json()
	if err != nil {
		return "", err
	}
	tok, _ := v.(map[string]any)["access_token"].(string)
	if tok == "" {
		return "", w.failf("the token response of %s has no access_token", id)
	}
	return tok, nil
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = randomID() + randomID() + randomID() + randomID() + randomID()
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func words(s string) []string { return strings.Fields(s) }

// sameSet compares two lists as sets.
func sameSet(got []any, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[string]bool{}
	for _, g := range got {
		s, ok := g.(string)
		if !ok {
			return false
		}
		seen[s] = true
	}
	for _, x := range want {
		if !seen[x] {
			return false
		}
	}
	return true
}
