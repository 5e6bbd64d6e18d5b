// Package steps holds the godog step definitions. Steps speak HTTP and git to the target, exactly as they would to
// any implementation; they know nothing of the reference.
//
// The layout, one package per area, kept apart by the compiler (harness's TestTheStepAreasImportNoOtherArea):
//   - steps (this package): what scenarios share (Suite; Env: the target, described by package target's types,
//     and the harness's hooks), Preflight (preflight.go: every service reachable, then each area's own checks),
//     Verdict, and the binding of every area to each scenario (InitializeScenario). It alone imports the areas.
//   - steps/core, the core every area uses and that imports no area: Run (what a run shares: the target, the HTTP
//     client, the run's context), Scenario (a scenario's names, its context, which its waits end with, and its
//     placeholders, expanded from {name}), the HTTP exchange on resty (exchange.go) with the evidence a failed
//     scenario shows (evidence.go), the answer steps that judge the last answer whichever area made it
//     (answers.go), the bounded waits (wait.go), the register of what scenarios create in the target, removed when
//     each ends (cleanup.go), and BlockedError.
//   - steps/auth: the authorization server's areas, each with its own state: identities, provisioning (UAA's
//     administration API, and the removal of what it made), the authorization code flow over HTTP (flow, id
//     token, walk, with browser.go and pages.go: sign-in and consent pages read by meaning), check_token and
//     introspection, the endpoints found by discovery, and the preflight walk through the flow for each fixture.
//   - steps/fortune: the fortune service, the greeting client's flow and the same flow in Chromium.
//   - steps/gateway: the gateway's routes and rate limits, with the upstream the steps run.
//   - steps/config: the configuration server with the repository the steps commit to, and the configuration
//     client application with its quote source.
//
// What areas share passes as typed values the owning package exports, never as strings in the placeholder map
// (placeholders are for the feature files) nor by embedding another area's type: the auth area's Session
// (auth.Session: the access token the scenario's user holds, its Identity, and the flow's browser) is what the
// fortune area knows of the user.
package steps

import (
	"context"
	"errors"
	"fmt"

	"github.com/fortune-tck/fortune-tck/steps/auth"
	"github.com/fortune-tck/fortune-tck/steps/config"
	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/steps/fortune"
	"github.com/fortune-tck/fortune-tck/steps/gateway"
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
	StartApp config.StartApp
	// Artifacts is the folder for files a run leaves for people to look at, such as screenshots.
	Artifacts string
}

// GatewayHooks are what the harness does for the gateway steps beyond HTTP (gateway.Hooks).
type GatewayHooks = gateway.Hooks

// Instance is one running instance of an application (config.Instance).
type Instance = config.Instance

// Suite carries what scenarios share, the run (core.Run: the target, the HTTP client, the run's context, the
// register of what scenarios created) and the shared state of each area, and binds every area to each scenario.
type Suite struct {
	env     Env
	run     *core.Run
	auth    *auth.Server
	gateway *gateway.Area
	config  *config.Area
}

// New returns the step suite for a target.
func New(env Env) *Suite {
	run := core.NewRun(env.Target)
	env.Target = run.Target
	return &Suite{env: env, run: run, auth: auth.New(run), gateway: gateway.New(run, env.Gateway),
		config: config.New(run, allowInstances(run, env.StartApp))}
}

// allowInstances adds the origin of every instance the harness starts to the run's origins: the steps talk to
// it as to the target's services.
func allowInstances(run *core.Run, start config.StartApp) config.StartApp {
	if start == nil {
		return nil
	}
	return func(ctx context.Context, name, profiles string) (config.Instance, error) {
		inst, err := start(ctx, name, profiles)
		if err == nil {
			run.Origins.Allow(inst.URL())
		}
		return inst, err
	}
}

// Secrets are the secrets of the run, which every output masks (core.Secrets).
func (s *Suite) Secrets() *core.Secrets { return s.run.Secrets }

// Origins are the only origins the run contacts (core.Origins).
func (s *Suite) Origins() *core.Origins { return s.run.Origins }

// StillWaiting names the operations under way: what a run that ran out of time was waiting for.
func (s *Suite) StillWaiting() []string { return s.run.StillWaiting() }

// Release releases what the run holds on the tester's machine (browsers and their folders), whatever
// happened: the harness calls it at the end of every run, an interrupted one too.
func (s *Suite) Release() { s.run.Release() }

// InitializeTestSuite is godog's TestSuiteInitializer.
func (s *Suite) InitializeTestSuite(ctx *godog.TestSuiteContext) {
	ctx.AfterSuite(func() {
		s.config.Close()
		s.gateway.Close()
	})
}

// InitializeScenario is godog's ScenarioInitializer: a fresh scenario for every scenario, with a context of its
// own that ends with it, and the steps of every area, each area with its own state, bound to it. What areas
// share passes as typed values: the auth area's Session (the user's tokens, who the user is, the flow's
// browser) to the fortune area.
func (s *Suite) InitializeScenario(sc *godog.ScenarioContext) {
	c := core.NewScenario(s.run)
	trackFailedStep(sc)
	sc.After(func(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
		defer c.End()
		return ctx, c.RemoveCreated(ctx)
	})
	sc.After(c.AttachEvidence)
	c.RegisterAnswerSteps(sc)
	user := s.auth.Bind(c, sc)
	fortune.Bind(c, sc, user, s.env.Artifacts)
	s.gateway.Bind(c, sc)
	s.config.Bind(c, sc)
}

// services are the target's services; a nil one is not under test.
func (s *Suite) services() *target.Services { return s.run.Services() }

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
	case f != nil && (f.context || core.IsBlocked(f.err)):
		return true, fmt.Sprintf("at %q: %v", f.text, f.err)
	case core.IsBlocked(err):
		return true, err.Error()
	}
	return false, ""
}

// Cleanup removes what scenarios created and did not remove (a run interrupted in the middle of one), and
// returns what went wrong.
func (s *Suite) Cleanup(ctx context.Context) error { return s.run.Cleanup(ctx) }

// LeftBehind names what the suite created in the target and could not remove, or had no way to.
func (s *Suite) LeftBehind() []string { return s.run.LeftBehind() }

// The evidence of a failed or blocked scenario in cucumber.json, as the core records it: the attachment
// "exchanges" holds the scenario's HTTP exchanges, in order, as a JSON array of Exchange.
type Exchange = core.ExchangeRecord

const (
	ExchangesAttachment = core.ExchangesAttachment
	ExchangesMediaType  = core.ExchangesMediaType
)

// BlockedError stops a scenario before the behaviour it is named for (core.BlockedError).
type BlockedError = core.BlockedError

// Blockedf makes a BlockedError.
func Blockedf(format string, args ...any) error { return core.Blockedf(format, args...) }

// IsBlocked tells whether err is, or wraps, a BlockedError.
func IsBlocked(err error) bool { return core.IsBlocked(err) }
