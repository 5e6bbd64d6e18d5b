package steps

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cucumber/godog"
)

// authState is what a scenario knows of the authorization server: tokens, secrets and ids of its identities,
// and the browser of its user.
type authState struct {
	adminToken string
	secrets    map[string]string // client id -> secret
	redirects  map[string]string // client id -> registered redirect URI
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

func newAuthState() authState {
	return authState{secrets: map[string]string{}, redirects: map[string]string{}, userIDs: map[string]string{}}
}

func (w *world) registerAuthServerSteps(sc *godog.ScenarioContext) {
	w.registerIdentitySteps(sc)
	w.registerProvisioningSteps(sc)
	w.registerFlowSteps(sc)
	w.registerCheckTokenSteps(sc)
}

func (w *world) authServer() (*AuthServer, error) {
	as := w.suite.env.AuthServer
	if as == nil {
		return nil, Blockedf("the target declares no authServer")
	}
	return as, nil
}

// endpoints are the authorization server's endpoints, as Preflight resolved them.
func (w *world) endpoints() (Endpoints, error) {
	if _, err := w.authServer(); err != nil {
		return Endpoints{}, err
	}
	return w.suite.endpoints, nil
}

// endpoint returns one endpoint, or an error that blocks the scenario when the target has none.
func (w *world) endpoint(name string, pick func(Endpoints) string) (string, error) {
	ep, err := w.endpoints()
	if err != nil {
		return "", err
	}
	if u := pick(ep); u != "" {
		return u, nil
	}
	return "", Blockedf("the authorization server has no %s endpoint (neither in its discovery document nor in the target's endpoints)", name)
}

// requestBody is a request's body and its media type; the zero value is no body.
type requestBody struct {
	data        []byte
	contentType string
}

func jsonBody(v any) requestBody {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("a step's JSON body does not encode: %v", err))
	}
	return requestBody{data: data, contentType: "application/json"}
}

func formBody(form url.Values) requestBody {
	return requestBody{data: []byte(form.Encode()), contentType: "application/x-www-form-urlencoded"}
}

// send makes a request to an absolute URL, asking for JSON, and keeps the exchange.
func (w *world) send(method, rawURL string, body requestBody, auth func(*http.Request)) error {
	req, err := http.NewRequest(method, rawURL, bytes.NewReader(body.data))
	if err != nil {
		return err
	}
	if body.contentType != "" {
		req.Header.Set("Content-Type", body.contentType)
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

// basic sets HTTP Basic credentials form-encoded, as RFC 6749 2.3.1 asks of clients.
func basic(id, secret string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret)) }
}

// postToken posts a form to the token endpoint.
func (w *world) postToken(form url.Values, auth func(*http.Request)) error {
	u, err := w.endpoint("token", func(e Endpoints) string { return e.Token })
	if err != nil {
		return err
	}
	return w.send(http.MethodPost, u, formBody(form), auth)
}

// clientCredentialsToken gets a token for a client with the client credentials grant.
func (w *world) clientCredentialsToken(id, secret string) (string, error) {
	if err := w.postToken(url.Values{"grant_type": {"client_credentials"}}, basic(id, secret)); err != nil {
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

// BlockedError stops a scenario before the behaviour it is named for: a precondition the target does not
// meet, or a surface it does not have. The harness reports it as blocked, apart from failures.
type BlockedError struct{ Cause string }

func (e *BlockedError) Error() string { return "blocked: " + e.Cause }

// Blockedf makes a BlockedError.
func Blockedf(format string, args ...any) error {
	return &BlockedError{Cause: fmt.Sprintf(format, args...)}
}

// IsBlocked tells whether err is, or wraps, a BlockedError.
func IsBlocked(err error) bool {
	var b *BlockedError
	return errors.As(err, &b)
}
