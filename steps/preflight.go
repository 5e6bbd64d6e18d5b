package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/target"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Preflight checks that every declared service answers HTTP at all and that the configuration repository can be
// listed. A target that cannot be reached is one error of the run, not a list of failed scenarios.
func (s *Suite) Preflight(ctx context.Context) error {
	s.ctx = ctx
	svcs := s.services()
	if as := svcs.AuthServer; as != nil {
		if err := s.preflightAuth(ctx, as); err != nil {
			return err
		}
	}
	for field, svc := range map[string]*target.Service{"services.fortune.url": svcs.Fortune, "services.greeting.url": svcs.Greeting} {
		if svc != nil {
			if err := reachable(ctx, field, svc.URL); err != nil {
				return err
			}
		}
	}
	if g := svcs.Gateway; g != nil {
		for i, inst := range g.Instances {
			if err := reachable(ctx, fmt.Sprintf("services.gateway.instances[%d].http", i), inst.HTTP); err != nil {
				return err
			}
		}
	}
	if cs := svcs.ConfigServer; cs != nil {
		if err := reachable(ctx, "services.configServer.url", cs.URL); err != nil {
			return err
		}
		if err := listable(cs.Repository); err != nil {
			return err
		}
		if err := s.PreflightConfigRepo(); err != nil {
			return err
		}
	}
	return nil
}

// reachable accepts any HTTP answer: status codes are for the scenarios to judge.
func reachable(ctx context.Context, field, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/", nil)
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the target: %s (%s): %w\nIs the service running? Check %s in the target file", field, url, err, field)
	}
	resp.Body.Close()
	return nil
}

func listable(r target.Repository) error {
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{r.URI}})
	if _, err := remote.List(&git.ListOptions{Auth: authOf(r)}); err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return fmt.Errorf("the configuration repository %s has no commit yet: the suite commits its files onto "+
				"master and branches from it; commit one file to master first (a README will do)", r.URI)
		}
		hint := "Check services.configServer.repository in the target file (uri, username, password)"
		if strings.Contains(err.Error(), "dubious ownership") {
			// A local repository goes through git's own upload-pack, which refuses another user's repository.
			hint = "git refuses a repository another user owns: run tck as its owner, or let git read it with " +
				"git config --global --add safe.directory " + strings.TrimSuffix(r.URI, "/.git")
		}
		return fmt.Errorf("cannot reach the configuration repository %s: %w\n%s", r.URI, err, hint)
	}
	return nil
}

// preflightAuth resolves the authorization server's endpoints, finds which profile-wide surfaces it lacks, and
// walks the whole flow once for each fixture: a wrong fixture, or a server that fails before any scenario
// could reach its behaviour, is one error of the run that names the field and the step, not a failure of
// every scenario.
func (s *Suite) preflightAuth(ctx context.Context, as *target.AuthServer) error {
	probes := newRestyClient(s.http, func(*exchange) {}) // no scenario's evidence
	ep, doc, err := resolveEndpoints(ctx, probes, as)
	if err != nil {
		return err
	}
	s.endpoints, s.discovery = ep, doc
	if err := probeCheckToken(ctx, probes, ep.CheckToken); err != nil {
		s.missing[features.SurfaceCheckToken] = err.Error()
	}
	if p := s.adminAPI; p != nil {
		if s.provisioner, err = newProvisioner(p); err != nil {
			return fmt.Errorf("services.authServer.provisioning: %w", err)
		}
		w := &flowSteps{scenario: newScenario(s)}
		if _, err := w.clientCredentialsToken(p.ClientID, p.ClientSecret); err != nil {
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
func (s *Suite) preflightFixtures(fx *target.Fixtures) error {
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

// fieldOf names the fixture a flow error is about: the client when the authorization request failed, else
// the user.
func fieldOf(err error, client, user string) string {
	var fe *flowError
	if errors.As(err, &fe) && fe.step == "the authorization request" {
		return client
	}
	return user
}

// preflightWalker is a flow of its own, outside every scenario.
func (s *Suite) preflightWalker() *flowSteps {
	w := &flowSteps{scenario: newScenario(s)}
	w.ids = newIdentitySteps(w.scenario)
	return w
}

// preflightToken walks the flow for the user and exchanges the code as the client is registered to
// authenticate; the token must carry fortunes.read, and a refresh token when refresh is set.
func (s *Suite) preflightToken(u *target.User, client string, refresh bool) (*checkTokenSteps, bool, error) {
	w := s.preflightWalker()
	scope := "openid fortunes.read"
	if refresh {
		scope += " " + w.vars["refresh_scopes"]
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
	return &checkTokenSteps{flowSteps: w}, consented, nil
}

// preflightRememberedConsent signs the reader in again in a new browser session. A server that asked for
// consent the first time and not the second remembers consents: the scenarios that must see a consent page
// cannot run with fixture users unless the target says so.
func (s *Suite) preflightRememberedConsent(u *target.User, consented bool) error {
	if !consented || s.env.Target.Has(features.CapAuthRememberedConsent) {
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
func (s *Suite) preflightShortLived(u *target.User, c *target.Client) error {
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
	if ct.last != nil && (ct.last.status == http.StatusUnauthorized || ct.last.status == http.StatusForbidden) {
		return fmt.Errorf("the server refused %s's credentials (%d): check clientSecret and authMethod, and that "+
			"the client may check tokens\n%s", client, ct.last.status, ct.last)
	}
	return fmt.Errorf("%s was not told that the reader's new token is active: %w. A server may answer "+
		"introspection only to a client in the token's audience: the resource client may then be the web client", client, err)
}

// MissingSurfaces are the surfaces the target lacks, each with the reason, as Preflight found them.
func (s *Suite) MissingSurfaces() map[features.Surface]string { return s.missing }
