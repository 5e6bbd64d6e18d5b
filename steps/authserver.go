package steps

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/fortune-tck/fortune-tck/target"
)

// The helpers the auth areas (identities, provisioning, flow, check_token) share: the authorization server's
// endpoints and its token endpoint.

func (s *scenario) authServer() (*target.AuthServer, error) {
	as := s.suite.services().AuthServer
	if as == nil {
		return nil, Blockedf("the target declares no authServer")
	}
	return as, nil
}

// endpoint returns one endpoint, as Preflight resolved it, or an error that blocks the scenario when the target
// has none.
func (s *scenario) endpoint(name string, pick func(endpoints) string) (string, error) {
	if _, err := s.authServer(); err != nil {
		return "", err
	}
	if u := pick(s.suite.endpoints); u != "" {
		return u, nil
	}
	return "", Blockedf("the authorization server has no %s endpoint (neither in its discovery document nor in the target's endpoints)", name)
}

// postToken posts a form to the token endpoint; client, when given, authenticates with HTTP Basic.
func (s *scenario) postToken(form url.Values, client *credentials) error {
	u, err := s.endpoint("token", func(e endpoints) string { return e.Token })
	if err != nil {
		return err
	}
	return s.api(request{method: http.MethodPost, url: u, form: form, basic: client})
}

// clientCredentialsToken gets a token for a client with the client credentials grant.
func (s *scenario) clientCredentialsToken(id, secret string) (string, error) {
	if err := s.postToken(url.Values{"grant_type": {"client_credentials"}}, &credentials{id, secret}); err != nil {
		return "", err
	}
	if s.last.status != http.StatusOK {
		return "", s.failf("the client credentials grant for %s answered %d", id, s.last.status)
	}
	obj, err := s.jsonObject()
	if err != nil {
		return "", err
	}
	tok, _ := obj["access_token"].(string)
	if tok == "" {
		return "", s.failf("the token response of %s has no access_token", id)
	}
	return tok, nil
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = randomID() + randomID() + randomID() + randomID() + randomID()
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
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
