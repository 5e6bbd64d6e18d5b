// Package auth holds the steps of the authorization server's areas: the scenario's identities (identities.go)
// and UAA's administration API (provisioning.go, provisioning_removal.go: what the steps create there, removed
// again), the authorization code flow over HTTP (flow.go, idtoken.go, walk.go, with browser.go and pages.go:
// a cookie-keeping browser that reads sign-in and consent pages by meaning), check_token, introspection and
// revocation (checktoken.go), account lockout and password policy (accounts.go), and the server's endpoints,
// found by discovery (discovery.go). Preflight walks the flow once for each fixture (preflight.go).
//
// What other areas may know of a scenario's user passes through Session (session.go): its tokens, who it is,
// and its browser, never through the placeholders the features use.
package auth

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// Server is what the auth steps of every scenario share: the authorization server's endpoints, resolved by
// Preflight, its administration API and the surfaces it lacks.
type Server struct {
	run *core.Run

	// endpoints are the authorization server's, resolved by Preflight; adminAPI and provisioner are nil
	// without an administration API; missing are the surfaces the target lacks, with the reason.
	endpoints   endpoints
	discovery   *discoveryDocument
	adminAPI    *adminAPI
	provisioner provisioner
	missing     map[features.Surface]string

	// admin is the admin client's token the removals of provisioned identities use (provisioning_removal.go).
	admin adminSession
}

// New returns the auth area of a run.
func New(run *core.Run) *Server {
	return &Server{run: run, missing: map[features.Surface]string{}, adminAPI: adminAPIOf(run.Services().AuthServer)}
}

// services are the target's services; a nil one is not under test.
func (s *Server) services() *target.Services { return s.run.Services() }

// Preflight resolves the authorization server's endpoints and walks the flow once for each fixture; without an
// authorization server there is nothing to check.
func (s *Server) Preflight(ctx context.Context) error {
	if as := s.services().AuthServer; as != nil {
		return s.preflightAuth(ctx, as)
	}
	return nil
}

// MissingSurfaces are the surfaces the target lacks, each with the reason, as Preflight found them.
func (s *Server) MissingSurfaces() map[features.Surface]string { return s.missing }

// Bind registers the auth steps of one scenario, each area with its own state, and returns what the other
// areas may know of the scenario's user.
func (s *Server) Bind(c *core.Scenario, sc *godog.ScenarioContext) *Session {
	s.addPlaceholders(c)
	ids := newIdentitySteps(s, c)
	flow := &flowSteps{Scenario: c, srv: s, ids: ids}
	ids.register(sc)
	(&provisioningSteps{Scenario: c, ids: ids}).register(sc)
	flow.register(sc)
	(&checkTokenSteps{Scenario: c, flow: flow}).register(sc)
	(&accountSteps{Scenario: c, flow: flow, ids: ids}).register(sc)
	(&filterSteps{Scenario: c, ids: ids}).register(sc)
	return &Session{flow: flow}
}

// newScenario is a scenario of the run outside godog's (the preflight's, a removal's), with the auth
// placeholders.
func (s *Server) newScenario() *core.Scenario {
	c := core.NewScenario(s.run)
	s.addPlaceholders(c)
	return c
}

// addPlaceholders fills the placeholders of the authorization server's endpoints the features use.
func (s *Server) addPlaceholders(c *core.Scenario) {
	c.Vars["refresh_scopes"] = strings.Join(s.refreshScopes(), " ")
	if as := s.services().AuthServer; as != nil {
		c.Vars["lockout_failures"] = strconv.Itoa(cmp.Or(as.LockoutAfterFailures, target.DefaultLockoutAfterFailures))
	}
	ep := s.endpoints
	for k, v := range map[string]string{"issuer": ep.Issuer, "authorization_endpoint": ep.Authorization, "token_endpoint": ep.Token} {
		if v != "" {
			c.Vars[k] = v
		}
	}
}
