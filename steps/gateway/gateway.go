// Package gateway holds the steps of the gateway area: routes to an upstream the steps run, the rate-limit
// policies applied to them, and the answers requests get through the gateway's instances. By concern:
// gateway.go the area, the scenario's state and the step table; manifests.go the routes and policies handed to
// the gateway, awaited on every instance; send.go the requests; answers.go the steps that judge the answers;
// windows.go the epoch-aligned windows (waiting for room, x-ratelimit-reset); accesslog.go the access log;
// upstream.go the upstream, which counts what it receives. The harness's Hooks hand manifests to the gateway.
package gateway

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// Hooks are what the harness does for the gateway steps beyond HTTP, the way the target says (a folder
// the gateway watches, commands, files): the gateway itself (its instances, its Gateway resource, the address
// at which it reaches the steps' upstream) is the target's services.gateway.
type Hooks struct {
	// Apply hands a manifest (one or more YAML documents) to the gateway, under a name of the scenario's.
	Apply func(ctx context.Context, name string, manifest []byte) error
	// Remove takes back a manifest Apply handed over (the same name and content); nil when the target has no
	// way to: the manifest is then named in the report as left behind.
	Remove func(ctx context.Context, name string, manifest []byte) error
	// AccessLog returns the access log of every instance so far, one JSON object a line; nil when the target
	// names no access log files.
	AccessLog func() (string, error)
	// Manifests holds the templates of features/testdata/gateway.
	Manifests fs.FS
}

// Area is what the gateway steps of every scenario share: the harness's hooks and the upstream, started on
// first use and closed by Close at the end of the run.
type Area struct {
	run   *core.Run
	hooks Hooks

	upstreamOnce sync.Once
	upstream     *upstream
	upstreamErr  error
}

// New returns the gateway area of a run.
func New(run *core.Run, hooks Hooks) *Area { return &Area{run: run, hooks: hooks} }

// Bind registers the gateway steps of one scenario, with state of their own.
func (a *Area) Bind(s *core.Scenario, sc *godog.ScenarioContext) {
	(&gatewaySteps{Scenario: s, area: a}).register(sc)
}

// Close stops the upstream, if a scenario started it.
func (a *Area) Close() {
	if a.upstream != nil {
		a.upstream.close()
	}
}

// upstreamServer returns the upstream the steps put behind the gateway, started on first use.
func (a *Area) upstreamServer() (*upstream, error) {
	a.upstreamOnce.Do(func() {
		g := a.run.Services().Gateway
		if g == nil {
			a.upstreamErr = fmt.Errorf("the target declares no gateway")
			return
		}
		a.upstream, a.upstreamErr = startUpstream(g.HarnessHost)
	})
	return a.upstream, a.upstreamErr
}

// gatewaySteps are a scenario's routes (name to host) and the answers its requests got, in order. Each answer
// keeps when its request was sent and answered: the window a counter is in depends on the moment, so
// x-ratelimit-reset is checked against both.
type gatewaySteps struct {
	*core.Scenario
	area    *Area
	routes  map[string]string
	answers []*core.Exchange
	// applied are the manifests the scenario handed to the gateway, by name, as last applied; backends the routes
	// whose Backend was applied alone, before them; policy the last policy applied.
	applied  map[string][]byte
	backends map[string]bool
	policy   *appliedPolicy
	// client trusts the gateway's self-signed certificate and records each answer as the scenario's last.
	client *resty.Client
}

// start gives the scenario its routes, its client and the placeholders of the gateway feature. They are the
// gateway's own ({caller}, not the authorization server's {user}): a target may declare a gateway alone.
func (gw *gatewaySteps) start() {
	gw.routes, gw.applied, gw.backends = map[string]string{}, map[string][]byte{}, map[string]bool{}
	gw.client = core.NewRestyClient(gatewayClient(gw.Run), gw.Record)
	gw.Vars["other_route"], gw.Vars["other_host"] = gw.Names.Route+"-other", "other-"+gw.Names.Host
	gw.Vars["caller"] = "tck-caller-" + gw.ID()
}

func (gw *gatewaySteps) register(sc *godog.ScenarioContext) {
	gw.start()
	sc.Step(`^an upstream that counts the requests it receives$`, gw.upstreamRuns)
	sc.Step(`^the route "([^"]+)" for the host "([^"]+)" leads to the upstream$`, gw.routeToUpstream)
	sc.Step(`^the policy "([^"]+)" applies to the route(?: "([^"]+)")?$`, gw.applyPolicy)
	sc.Step(`^the policy "([^"]+)" applies to the route, before the route "([^"]+)" it also names exists$`, func(ctx context.Context, template, later string) error {
		return gw.applyPolicyBefore(ctx, template, "", later)
	})
	sc.Step(`^the route "([^"]+)" for the host "([^"]+)" is added on its own, its Backend already applied$`, gw.routeOnItsOwn)
	sc.Step(`^the policy takes effect on the route(?: "([^"]+)")?$`, gw.takesEffectOn)
	sc.Step(`^the policy "([^"]+)" is changed to "([^"]+)"$`, gw.changePolicy)
	sc.Step(`^the route "([^"]+)" is removed$`, gw.removeRoute)
	sc.Step(`^the route "([^"]+)" is added again$`, gw.addRouteAgain)
	sc.Step(`^the invalid policy "([^"]+)" is offered for the route(?:, refused at "([^"]+)")?$`, gw.offerPolicy)
	sc.Step(`^the policy "([^"]+)", which Envoy Gateway cannot translate, is applied to the route$`, gw.applyUntranslatable)
	sc.Step(`^the route answers 500 on every gateway instance$`, gw.routeAnswers500)
	sc.Step(`^(\d+) requests? with "([^"]+)" (?:are|is) sent to the route(?: "([^"]+)")?$`, func(n int, h, route string) error {
		return gw.sendHeaders(n, h, sendOptions{method: "GET", route: route})
	})
	sc.Step(`^(\d+) requests? with "([^"]+)" and "([^"]+)" (?:are|is) sent to the route$`, func(n int, h1, h2 string) error {
		return gw.sendHeaders(n, h1+"\n"+h2, sendOptions{method: "GET"})
	})
	sc.Step(`^(\d+) (GET|HEAD) requests with "([^"]+)" are sent to the route over HTTPS$`, func(n int, method, h string) error {
		return gw.sendHeaders(n, h, sendOptions{method: method, listener: overHTTPS})
	})
	sc.Step(`^(\d+) requests with "([^"]+)" are sent to the route, alternately through instances 1 and 2$`, func(n int, h string) error {
		return gw.sendHeaders(n, h, sendOptions{method: "GET", spread: alternately})
	})
	sc.Step(`^(\d+) requests with "([^"]+)" are sent to the route within one Second window$`, func(n int, h string) error {
		if err := gw.waitForWindowStart(time.Second); err != nil {
			return err
		}
		return gw.sendHeaders(n, h, sendOptions{method: "GET"})
	})
	sc.Step(`^(\d+) requests without "([^"]+)" are sent to the route$`, func(n int, _ string) error {
		return gw.sendToRoute(n, sendOptions{method: "GET"})
	})
	sc.Step(`^requests with "([^"]+)" and "([^"]+)" in turn are sent to the route until one is answered 429, (\d+) at most$`, gw.sendUntilLimited)
	sc.Step(`^the last request is answered 429 with the header "([^"]+)" "([^"]+)"$`, gw.lastLimitedWith)
	sc.Step(`^request (\d+) passes with x-ratelimit-remaining "(\d+)"$`, gw.requestPasses)
	sc.Step(`^requests 1 to (\d+) are answered ([0-9, ]+) with x-ratelimit-remaining ([0-9, ]+)$`, gw.answeredInTurn)
	sc.Step(`^request (\d+) has the header "([^"]+)" "([^"]+)"$`, gw.requestHas)
	sc.Step(`^requests (\d+) to (\d+) are answered 500 without rate-limit headers$`, func(from, to int) error {
		return gw.answeredWithoutLimit(from, to, http.StatusInternalServerError)
	})
	sc.Step(`^requests (\d+) and (\d+) pass$`, gw.requestsPass)
	sc.Step(`^each request before the last passes with an x-ratelimit-remaining one less than the request before it$`, gw.remainingCountsDown)
	sc.Step(`^request (\d+) is answered 429$`, func(i int) error { return gw.requestLimited(i, nil) })
	sc.Step(`^request (\d+) is answered 429 with the headers:$`, gw.requestLimited)
	sc.Step(`^every answer has the header "([^"]+)" "([^"]+)"$`, func(name, want string) error { return gw.everyAnswerHas(1, name, want) })
	sc.Step(`^every answer from request (\d+) on has the header "([^"]+)" "([^"]+)"$`, gw.everyAnswerHas)
	sc.Step(`^requests (\d+) to (\d+) pass without rate-limit headers$`, gw.passUnlimited)
	sc.Step(`^every request passes without rate-limit headers$`, func() error { return gw.passUnlimited(1, len(gw.answers)) })
	sc.Step(`^the upstream received (\d+) requests for the route(?: "([^"]+)")?$`, gw.upstreamReceived)
	sc.Step(`^the upstream received every request that passed$`, gw.upstreamReceivedPassed)
	sc.Step(`^the x-ratelimit-reset of request (\d+) is the number of seconds left in its (\d+)-second window$`, gw.resetCountsDown)
	sc.Step(`^the x-ratelimit-reset of request (\d+) has elapsed$`, gw.waitForReset)
	sc.Step(`^the access log line of request (\d+) has:$`, gw.accessLogHas)
}

func (gw *gatewaySteps) gateway() (*target.Gateway, error) {
	g := gw.Services().Gateway
	if g == nil || len(g.Instances) == 0 {
		return nil, fmt.Errorf("the target declares no gateway")
	}
	return g, nil
}

func (gw *gatewaySteps) upstreamRuns() error {
	_, err := gw.area.upstreamServer()
	return err
}
