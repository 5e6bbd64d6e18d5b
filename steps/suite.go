// Package steps holds the godog step definitions. Steps speak HTTP and git to the target, exactly as they would to
// any implementation; they know nothing of the reference.
//
// The layout:
//   - suite.go: what scenarios share (Suite; Env: the target, described by package target's types, and the
//     harness's hooks) and the binding of every area to a scenario; preflight.go checks the target before the run.
//   - The core every area uses: scenario.go (a scenario's names and placeholders), placeholders.go (expansion of
//     {name}), exchange.go (the HTTP exchange, on resty, and its evidence: request, status, body excerpt),
//     answers.go (steps that judge the last answer, whichever area made it), wait.go (the one bounded wait).
//   - One type per area, holding only that area's state and registering its own steps: identitySteps
//     (identities.go: the scenario's users and clients), provisioningSteps (provisioning.go: UAA's
//     administration API), flowSteps (flow.go, idtoken.go: the authorization code flow over HTTP, with
//     browser.go and pages.go), checkTokenSteps (checktoken.go), fortuneSteps (fortune.go), greetingSteps
//     (greeting.go), chromiumSteps (chromium.go: a real browser), gatewaySteps (gateway.go, with upstream.go),
//     configServerSteps (configserver.go, with gitrepo.go) and configAppSteps (configapp.go, with quotes.go).
//   - authserver.go and authenv.go: the authorization server's endpoints, found by discovery, its
//     administration API, and the auth helpers its areas share.
//   - cleanup.go: the register of what scenarios create in the target, removed when each ends; the areas
//     register their own (gateway.go, configserver.go, provisioning_removal.go).
package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/target"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
)

// Env is the target under test, as its file describes it, and what the harness does for the steps beyond HTTP
// and git: how manifests reach the gateway, how application instances start, where artifacts go.
type Env struct {
	// Target describes the services and identities; a service it leaves out is not under test. Nil is a target
	// that declares nothing.
	Target *target.Target
	// Gateway hands manifests to the gateway the target declares and reads its access log.
	Gateway GatewayHooks
	// StartApp runs one instance of the configuration client application with the application name and
	// comma-separated profiles, ready to answer HTTP: both are fixed at start, so every scenario starts the
	// instances it needs.
	StartApp func(ctx context.Context, name, profiles string) (Instance, error)
	// Artifacts is the folder for files a run leaves for people to look at, such as screenshots.
	Artifacts string
}

// Instance is one running instance of an application.
type Instance interface {
	URL() string
	// Log is everything the instance has written to its log so far.
	Log() string
	Stop()
}

// Suite carries what scenarios share: the HTTP client and the git workspace (cloned once, on first use).
type Suite struct {
	env  Env
	http *http.Client

	// endpoints are the authorization server's, resolved by Preflight; adminAPI and provisioner are nil
	// without an administration API; missing are the surfaces the target lacks, with the reason.
	endpoints   endpoints
	discovery   *discoveryDocument
	adminAPI    *adminAPI
	provisioner provisioner
	missing     map[features.Surface]string

	repoOnce sync.Once
	repo     *workspace
	repoErr  error

	quotesOnce sync.Once
	quotes     *quoteSource
	quotesErr  error

	// cleanups are what scenarios created in the target, until they are removed (cleanup.go); admin is the
	// admin client's token the removals of provisioned identities use (provisioning_removal.go).
	cleanups cleanups
	admin    adminSession
	// ctx is the run's context (Preflight's): stopping the run (Ctrl-C) ends every wait of the steps.
	ctx context.Context

	upstreamOnce sync.Once
	upstream     *upstream
	upstreamErr  error
}

// New returns the step suite for a target.
func New(env Env) *Suite {
	if env.Target == nil {
		env.Target = &target.Target{}
	}
	return &Suite{
		env: env, missing: map[features.Surface]string{}, adminAPI: adminAPIOf(env.Target.Services.AuthServer),
		// Redirects are answers to check, not to follow.
		http: &http.Client{
			Timeout: 20 * time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone(),
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
		if s.quotes != nil {
			s.quotes.close()
		}
		if s.upstream != nil {
			s.upstream.close()
		}
	})
}

// InitializeScenario is godog's ScenarioInitializer: a fresh scenario for every scenario, and the steps of
// every area, each area with its own state, bound to it.
func (s *Suite) InitializeScenario(sc *godog.ScenarioContext) {
	core := newScenario(s)
	trackFailedStep(sc)
	sc.After(func(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
		return ctx, core.removeCreated(ctx)
	})
	sc.After(core.attachEvidence)
	core.registerAnswerSteps(sc)
	ids := newIdentitySteps(core)
	flow := &flowSteps{scenario: core, ids: ids}
	ids.register(sc)
	(&provisioningSteps{identitySteps: ids}).register(sc)
	flow.register(sc)
	(&checkTokenSteps{flowSteps: flow}).register(sc)
	(&fortuneSteps{scenario: core}).register(sc)
	(&greetingSteps{flowSteps: flow}).register(sc)
	(&chromiumSteps{scenario: core}).register(sc)
	(&gatewaySteps{scenario: core}).register(sc)
	(&configServerSteps{scenario: core}).register(sc)
	(&configAppSteps{scenario: core}).register(sc)
}

// services are the target's services; a nil one is not under test.
func (s *Suite) services() *target.Services { return &s.env.Target.Services }

// workspace returns the shared clone of the configuration repository.
func (s *Suite) workspace() (*workspace, error) {
	s.repoOnce.Do(func() {
		s.repo, s.repoErr = openWorkspace(s.services().ConfigServer.Repository)
	})
	return s.repo, s.repoErr
}

// quoteSource returns the quote source the steps serve to the application, started on first use.
func (s *Suite) quoteSource() (*quoteSource, error) {
	s.quotesOnce.Do(func() {
		s.quotes, s.quotesErr = startQuoteSource(s.services().ConfigApp.HarnessHost)
	})
	return s.quotes, s.quotesErr
}

// upstreamServer returns the upstream the steps put behind the gateway, started on first use.
func (s *Suite) upstreamServer() (*upstream, error) {
	s.upstreamOnce.Do(func() {
		g := s.services().Gateway
		if g == nil {
			s.upstreamErr = fmt.Errorf("the target declares no gateway")
			return
		}
		s.upstream, s.upstreamErr = startUpstream(g.HarnessHost)
	})
	return s.upstream, s.upstreamErr
}

// failedStep is the first step of a scenario that failed, kept in the scenario's context.
type failedStep struct {
	text    string
	context bool // a Given step: a precondition
	err     error
}

type failedStepKey struct{}

// trackFailedStep remembers the first failed step of the scenario in its context. Like every After hook it
// returns only its own errors (it has none): godog keeps the step's error and adds whatever a hook returns.
func trackFailedStep(sc *godog.ScenarioContext) {
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		if err != nil && ctx.Value(failedStepKey{}) == nil && !errors.Is(err, godog.ErrSkip) {
			ctx = context.WithValue(ctx, failedStepKey{}, &failedStep{text: st.Text,
				context: st.Type == messages.PickleStepType_CONTEXT, err: err})
		}
		return ctx, nil
	})
}

// Verdict tells whether a scenario that ended with err was blocked: stopped by a precondition (a Given step)
// or by a surface the target lacks, before the behaviour it is named for. cause names the step and the error.
func Verdict(ctx context.Context, err error) (blocked bool, cause string) {
	if err == nil {
		return false, ""
	}
	f, _ := ctx.Value(failedStepKey{}).(*failedStep)
	switch {
	case f != nil && (f.context || IsBlocked(f.err)):
		return true, fmt.Sprintf("at %q: %v", f.text, f.err)
	case IsBlocked(err):
		return true, err.Error()
	}
	return false, ""
}

// runContext is the run's context, Background before Preflight set it.
func (s *Suite) runContext() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}
