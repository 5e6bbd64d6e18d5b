package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// The helpers the auth areas (identities, provisioning, flow, check_token) share, on the Server: the authorization server's
// endpoints and its token endpoint.

func (s *Server) authServer() (*target.AuthServer, error) {
	as := s.services().AuthServer
	if as == nil {
		return nil, core.Blockedf("the target declares no authServer")
	}
	return as, nil
}

// endpoint returns one endpoint, as Preflight resolved it, or an error that blocks the scenario when the target
// has none.
func (s *Server) endpoint(name string, pick func(endpoints) string) (string, error) {
	if _, err := s.authServer(); err != nil {
		return "", err
	}
	if u := pick(s.endpoints); u != "" {
		return u, nil
	}
	return "", core.Blockedf("the authorization server has no %s endpoint (neither in its discovery document nor in the target's endpoints)", name)
}

// postToken posts a form to the token endpoint; client, when given, authenticates with HTTP Basic.
func (s *Server) postToken(sc *core.Scenario, form url.Values, client *core.Credentials) error {
	u, err := s.endpoint("token", func(e endpoints) string { return e.Token })
	if err != nil {
		return err
	}
	return sc.API(core.Request{Method: http.MethodPost, URL: u, Form: form, Basic: client})
}

// clientCredentialsToken gets a token for a client with the client credentials grant.
func (s *Server) clientCredentialsToken(sc *core.Scenario, id, secret string) (string, error) {
	if err := s.postToken(sc, url.Values{"grant_type": {"client_credentials"}}, &core.Credentials{Name: id, Password: secret}); err != nil {
		return "", err
	}
	if sc.Last.Status != http.StatusOK {
		return "", sc.Failf("the client credentials grant for %s answered %d", id, sc.Last.Status)
	}
	obj, err := sc.JSONObject()
	if err != nil {
		return "", err
	}
	tok, _ := obj["access_token"].(string)
	if tok == "" {
		return "", sc.Failf("the token response of %s has no access_token", id)
	}
	return tok, nil
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = core.RandomID() + core.RandomID() + core.RandomID() + core.RandomID() + core.RandomID()
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}
