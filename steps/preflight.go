package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Preflight checks that every declared service answers HTTP at all and that the configuration repository can be
// listed. A target that cannot be reached is one error of the run, not a list of failed scenarios.
func (s *Suite) Preflight(ctx context.Context) error {
	if as := s.env.AuthServer; as != nil {
		if err := s.preflightAuth(ctx, as); err != nil {
			return err
		}
	}
	for field, svc := range map[string]*Service{"services.fortune.url": s.env.Fortune, "services.greeting.url": s.env.Greeting} {
		if svc != nil {
			if err := reachable(ctx, field, svc.URL); err != nil {
				return err
			}
		}
	}
	if g := s.env.Gateway; g != nil {
		for i, inst := range g.Instances {
			if err := reachable(ctx, fmt.Sprintf("services.gateway.instances[%d].http", i), inst.HTTP); err != nil {
				return err
			}
		}
	}
	if cs := s.env.ConfigServer; cs != nil {
		if err := reachable(ctx, "services.configServer.url", cs.URL); err != nil {
			return err
		}
		if err := listable(cs.Repo); err != nil {
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

func listable(r Repo) error {
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{r.URI}})
	if _, err := remote.List(&git.ListOptions{Auth: authOf(r)}); err != nil {
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
// signs each fixture user in once: a wrong fixture is one error of the run that names its field, not a failure
// of every scenario.
func (s *Suite) preflightAuth(ctx context.Context, as *AuthServer) error {
	probes := newRestyClient(s.http, func(*exchange) {}) // no scenario's evidence
	ep, err := resolveEndpoints(ctx, probes, as)
	if err != nil {
		return err
	}
	s.endpoints = ep
	if err := probeCheckToken(ctx, probes, ep.CheckToken); err != nil {
		s.missing[features.SurfaceCheckToken] = err.Error()
	}
	if as.Provisioning != nil {
		if s.provisioner, err = newProvisioner(as.Provisioning); err != nil {
			return fmt.Errorf("services.authServer.provisioning: %w", err)
		}
		return nil
	}
	if fx := as.Fixtures; fx != nil {
		for _, u := range []struct {
			field string
			user  *User
		}{{"reader", fx.Reader}, {"outsider", fx.Outsider}} {
			if u.user != nil {
				if err := s.signInOnce(u.user, fx.Web); err != nil {
					return fmt.Errorf("services.authServer.fixtures.users.%s: %w", u.field, err)
				}
			}
		}
	}
	return nil
}

// MissingSurfaces are the surfaces the target lacks, each with the reason, as Preflight found them.
func (s *Suite) MissingSurfaces() map[features.Surface]string { return s.missing }

// signInOnce starts a code flow for the web client and signs the user in; the sign-in page coming back means
// the password was refused.
func (s *Suite) signInOnce(u *User, web *Client) error {
	if web == nil {
		return fmt.Errorf("services.authServer.fixtures.clients.web is needed to sign %s in", u.Username)
	}
	w := &flowSteps{scenario: newScenario(s)}
	w.ids = newIdentitySteps(w.scenario)
	if err := w.askForCode(web.ID, "openid", web.RedirectURI); err != nil {
		return fmt.Errorf("starting a sign-in of %s at %s: %w", u.Username, s.endpoints.Authorization, err)
	}
	if w.browser.redirect != nil {
		return fmt.Errorf("the authorization server sent the browser back to the client without a sign-in page: %s", w.browser.redirect)
	}
	if err := w.signIn(u.Username, u.Password); err != nil {
		return fmt.Errorf("signing %s in at %s: %w", u.Username, w.browser.pageURL, err)
	}
	if w.browser.redirect == nil {
		p, err := w.browser.parse(s.env.AuthServer.Pages)
		if err != nil {
			return err
		}
		if f, _, _ := p.signInForm(); f != nil {
			return fmt.Errorf("the sign-in at %s refused the password of %s (the sign-in page came back); check the fixture", w.browser.pageURL, u.Username)
		}
	}
	return nil
}
