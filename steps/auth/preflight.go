package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// preflightAuth resolves the authorization server's endpoints, finds which profile-wide surfaces it lacks, and
// walks the whole flow once for each fixture: a wrong fixture, or a server that fails before any scenario
// could reach its behaviour, is one error of the run that names the field and the step, not a failure of
// every scenario.
func (s *Server) preflightAuth(ctx context.Context, as *target.AuthServer) error {
	probes := core.NewRestyClient(s.run.HTTP, func(*core.Exchange) {}) // no scenario's evidence
	ep, doc, err := resolveEndpoints(ctx, probes, s.run, as)
	if err != nil {
		return err
	}
	s.endpoints, s.discovery = ep, doc
	done := s.run.Waiting("the preflight's probe of check_token at " + ep.CheckToken)
	err = probeCheckToken(ctx, probes, ep.CheckToken)
	done()
	if err != nil {
		s.missing[features.SurfaceCheckToken] = err.Error()
	}
	if p := s.adminAPI; p != nil {
		if s.provisioner, err = newProvisioner(p); err != nil {
			return fmt.Errorf("services.authServer.provisioning: %w", err)
		}
		w := &flowSteps{Scenario: s.newScenario(), srv: s}
		if _, err := s.clientCredentialsToken(w.Scenario, p.ClientID, p.ClientSecret); err != nil {
			return fmt.Errorf("services.authServer.provisioning: the admin client %s cannot get a token at %s: %w",
				p.ClientID, ep.Token, err)
		}
		return nil
	}
	if fx := as.Fixtures; fx != nil {
		return s.preflightFixtures(fx)
	}
	return nil
}

// preflightFixtures walks the flow for each fixture: the reader through to a token with fortunes.read (and a
// refresh token where the server has the grant), the outsider to a code, the short-lived client to a token
// that expires within seconds, and the resource client through a check of the reader's token.
func (s *Server) preflightFixtures(fx *target.Fixtures) error {
	const f = "services.authServer.fixtures"
	users, clients := fx.Users, fx.Clients
	if clients.Web == nil {
		return fmt.Errorf("%s.clients.web is needed to sign users in", f)
	}
	reader, consented, err := s.preflightToken(users.Reader, clients.Web.ClientID, s.issuesRefreshTokens())
	if err != nil {
		return fmt.Errorf("%s: %w", fieldOf(err, f+".clients.web", f+".users.reader"), err)
	}
	if err := s.preflightRememberedConsent(users.Reader, consented); err != nil {
		return fmt.Errorf("%s.users.reader: %w", f, err)
	}
	if o := users.Outsider; o != nil {
		w := s.preflightWalker()
		if _, err := w.walkToCode(o.Username, o.Password, clients.Web.ClientID, "openid fortunes.read"); err != nil {
			return fmt.Errorf("%s: signing %s in: %w", fieldOf(err, f+".clients.web", f+".users.outsider"), o.Username, err)
		}
	}
	if c := clients.ShortLived; c != nil {
		if err := s.preflightShortLived(users.Reader, c); err != nil {
			return fmt.Errorf("%s.clients.shortLived: %w", f, err)
		}
	}
	if c := clients.Resource; c != nil {
		if err := reader.preflightResource(c.ClientID); err != nil {
			return fmt.Errorf("%s.clients.resource: %w", f, err)
		}
	}
	return nil
}

// fieldOf names what a flow error is about: the client when the server refused its authorization request, the
// server when it failed there or signs no one in, else the user.
func fieldOf(err error, client, user string) string {
	var fe *flowError
	if !errors.As(err, &fe) || fe.step != "the authorization request" {
		return user
	}
	var cf clientFault
	if errors.As(err, &cf) {
		return client
	}
	return "services.authServer"
}

// preflightWalker is a flow of its own, outside every scenario.
func (s *Server) preflightWalker() *flowSteps {
	w := &flowSteps{Scenario: s.newScenario(), srv: s}
	w.ids = newIdentitySteps(s, w.Scenario)
	return w
}

// preflightToken walks the flow for the user and exchanges the code as the client is registered to
// authenticate; the token must carry fortunes.read, and a refresh token when refresh is set.
func (s *Server) preflightToken(u *target.User, client string, refresh bool) (*checkTokenSteps, bool, error) {
	w := s.preflightWalker()
	scope := "openid fortunes.read"
	if refresh {
		scope += " " + w.Vars["refresh_scopes"]
	}
	consented, err := w.walkToCode(u.Username, u.Password, client, scope)
	if err != nil {
		return nil, false, fmt.Errorf("signing %s in: %w", u.Username, err)
	}
	if err := w.exchangeAsRegistered(); err != nil {
		return nil, false, err
	}
	got, err := w.grantedScopes()
	if err != nil {
		return nil, false, err
	}
	if !slices.Contains(got, "fortunes.read") {
		return nil, false, fmt.Errorf("fortunes.read was not granted: the token's scope is %q. The user must hold "+
			"fortunes.read and the client %s may ask for it (RFC 6749 3.3 lets a server grant less than asked)",
			strings.Join(got, " "), client)
	}
	if rt, _ := w.tokens["refresh_token"].(string); refresh && rt == "" {
		return nil, false, fmt.Errorf("no refresh token was issued for the scope %q, though the server has the grant "+
			"refresh_token: %s", w.asked, w.refreshHint())
	}
	return &checkTokenSteps{Scenario: w.Scenario, flow: w}, consented, nil
}

// preflightRememberedConsent signs the reader in again in a new browser session. A server that asked for
// consent the first time and not the second remembers consents: the scenarios that must see a consent page
// cannot run with fixture users unless the target says so.
func (s *Server) preflightRememberedConsent(u *target.User, consented bool) error {
	if !consented || s.run.Target.Has(features.CapAuthRememberedConsent) {
		return nil
	}
	w := s.preflightWalker()
	again, err := w.walkToCode(u.Username, u.Password, s.services().AuthServer.Fixtures.Clients.Web.ClientID, "openid fortunes.read")
	if err != nil {
		return fmt.Errorf("signing %s in a second time: %w", u.Username, err)
	}
	if !again {
		return fmt.Errorf("the server remembered the consent %s gave a moment ago (a new browser session was sent "+
			"back with a code without a consent page): declare the capability auth.remembered-consent; the "+
			"scenarios that must see a consent page then need fresh users (provisioning)", u.Username)
	}
	return nil
}

// preflightShortLived gets a token for the short-lived client, which must expire within 4 seconds.
func (s *Server) preflightShortLived(u *target.User, c *target.Client) error {
	w := s.preflightWalker()
	if _, err := w.walkToCode(u.Username, u.Password, c.ClientID, "openid fortunes.read"); err != nil {
		return fmt.Errorf("signing %s in: %w", u.Username, err)
	}
	if err := w.exchangeAsRegistered(); err != nil {
		return err
	}
	exp, err := strconv.ParseFloat(fmt.Sprint(w.tokens["expires_in"]), 64)
	if err != nil || exp > 4 || exp <= 0 {
		return fmt.Errorf("its access tokens live %v s (expires_in): the expiry scenarios need a client whose tokens expire within 4 s", w.tokens["expires_in"])
	}
	return nil
}

// preflightResource checks the reader's new token as the resource client, the way the scenarios will: with
// check_token where the server has it, else introspection. It must be reported active.
func (ct *checkTokenSteps) preflightResource(client string) error {
	err := ct.tokenActive(client)
	if err == nil {
		return nil
	}
	if ct.Last != nil && (ct.Last.Status == http.StatusUnauthorized || ct.Last.Status == http.StatusForbidden) {
		return fmt.Errorf("the server refused %s's credentials (%d): check clientSecret and authMethod, and that "+
			"the client may check tokens\n%s", client, ct.Last.Status, ct.Last)
	}
	return fmt.Errorf("%s was not told that the reader's new token is active: %w. A server may answer "+
		"introspection only to a client in the token's audience: the resource client may then be the web client", client, err)
}
