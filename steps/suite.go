// Package steps holds the godog step definitions, one file per area, and the per-scenario world. Steps speak HTTP
// and git to the target, exactly as they would to any implementation; they know nothing of the reference.
package steps

import (
	"net/http"
	"sync"
	"time"

	"github.com/cucumber/godog"
)

// Env is what the steps know of the target: where each service is and how to reach what is not HTTP.
// A nil service means its area is not under test.
type Env struct {
	ConfigServer *ConfigServer
}

// ConfigServer is the configuration server and the repository it reads.
type ConfigServer struct {
	URL  string
	Repo Repo
}

// Repo is a git repository the steps may push to.
type Repo struct {
	URI      string
	Username string
	Password string
}

// Suite carries what scenarios share: the HTTP client and the git workspace (cloned once, on first use).
type Suite struct {
	env  Env
	http *http.Client

	repoOnce sync.Once
	repo     *workspace
	repoErr  error
}

// New returns the step suite for a target.
func New(env Env) *Suite {
	return &Suite{
		env: env,
		// Redirects are answers to check, not to follow.
		http: &http.Client{
			Timeout:       20 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// InitializeTestSuite is godog's TestSuiteInitializer.
func (s *Suite) InitializeTestSuite(ctx *godog.TestSuiteContext) {
	ctx.AfterSuite(func() {
		if s.repo != nil {
			s.repo.close()
		}
	})
}

// InitializeScenario is godog's ScenarioInitializer: a fresh world for every scenario, with the steps of every
// area bound to it.
func (s *Suite) InitializeScenario(sc *godog.ScenarioContext) {
	w := newWorld(s)
	sc.After(w.attachEvidence)
	w.registerHTTPSteps(sc)
	w.registerConfigServerSteps(sc)
}

// workspace returns the shared clone of the configuration repository.
func (s *Suite) workspace() (*workspace, error) {
	s.repoOnce.Do(func() {
		s.repo, s.repoErr = openWorkspace(s.env.ConfigServer.Repo)
	})
	return s.repo, s.repoErr
}
