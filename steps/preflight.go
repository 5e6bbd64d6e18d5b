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
		if err := s.config.Preflight(); err != nil {
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

// MissingSurfaces are the surfaces the target lacks, each with the reason, as Preflight found them.
func (s *Suite) MissingSurfaces() map[features.Surface]string { return s.auth.MissingSurfaces() }
