package steps

import (
	"context"
	"fmt"
	"net/http"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Preflight checks that every declared service answers HTTP at all and that the configuration repository can be
// listed. A target that cannot be reached is one error of the run, not a list of failed scenarios.
func (s *Suite) Preflight(ctx context.Context) error {
	if as := s.env.AuthServer; as != nil {
		if err := reachable(ctx, "services.authServer.url", as.URL); err != nil {
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
	installFileTransport.Do(installInProcessFileTransport)
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{r.URI}})
	if _, err := remote.List(&git.ListOptions{Auth: authOf(r)}); err != nil {
		return fmt.Errorf("cannot reach the configuration repository %s: %w\n"+
			"Check services.configServer.repository in the target file (uri, username, password)", r.URI, err)
	}
	return nil
}
