package steps

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/target"
)

// Preflight checks that every declared service answers HTTP at all and that the configuration repository can be
// listed. A target that cannot be reached is one error of the run, not a list of failed scenarios.
func (s *Suite) Preflight(ctx context.Context) error {
	s.run.SetContext(ctx)
	svcs := s.services()
	if err := s.auth.Preflight(ctx); err != nil {
		return err
	}
	for field, svc := range map[string]*target.Service{"services.fortune.url": svcs.Fortune, "services.greeting.url": svcs.Greeting} {
		if svc != nil {
			if err := s.reachable(ctx, field, svc.URL); err != nil {
				return err
			}
		}
	}
	if g := svcs.Gateway; g != nil {
		for i, inst := range g.Instances {
			if err := s.reachable(ctx, fmt.Sprintf("services.gateway.instances[%d].http", i), inst.HTTP); err != nil {
				return err
			}
		}
	}
	if cs := svcs.ConfigServer; cs != nil {
		if err := s.reachable(ctx, "services.configServer.url", cs.URL); err != nil {
			return err
		}
		if err := s.config.Preflight(ctx); err != nil {
			return err
		}
	}
	return nil
}

// reachable accepts any HTTP answer: status codes are for the scenarios to judge. It asks with the run's
// client, as every request of the harness: only declared origins, no redirect followed, bounded in time (10s)
// and in what it reads (the headers only).
func (s *Suite) reachable(ctx context.Context, field, url string) error {
	ctx, cancel := context.WithTimeout(ctx, reachableTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/", nil)
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	defer s.run.Waiting("the preflight's GET " + url + "/")()
	resp, err := s.run.HTTP.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no answer within %s", reachableTimeout)
		}
		return fmt.Errorf("cannot reach the target: %s (%s): %w\nIs the service running? Check %s in the target file", field, url, err, field)
	}
	resp.Body.Close()
	return nil
}

// reachableTimeout bounds the preflight's first request to each service.
const reachableTimeout = 10 * time.Second

// MissingSurfaces are the surfaces the target lacks, each with the reason, as Preflight found them.
func (s *Suite) MissingSurfaces() map[features.Surface]string { return s.auth.MissingSurfaces() }
