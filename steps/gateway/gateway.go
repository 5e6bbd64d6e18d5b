// Package gateway holds the steps of the gateway area: routes to an upstream the steps run, the rate-limit
// policies applied to them, and the answers requests get through the gateway's instances (gateway.go, with
// upstream.go: the upstream, which counts what it receives). The harness's Hooks hand manifests to the gateway.
package gateway

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"
	"gopkg.in/yaml.v3"

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
	// client trusts the gateway's self-signed certificate and records each answer as the scenario's last.
	client *resty.Client
}

// listener is the gateway listener requests go to.
type listener int

const (
	plainHTTP listener = iota
	overHTTPS
)

// spread is how requests are spread over the gateway's instances.
type spread int

const (
	firstInstance spread = iota
	alternately          // through instances 1 and 2 in turn
)

// sendOptions say how a scenario's requests reach the gateway.
type sendOptions struct {
	method string
	// route is the route the requests are for; empty: the scenario's own, {route}.
	route    string
	listener listener
	spread   spread
	// headers are sent with every request; turns, when set, are sent one per request in turn instead.
	headers map[string]string
	turns   []map[string]string
}

// start gives the scenario its routes, its client and the placeholders of the gateway feature. They are the
// gateway's own ({caller}, not the authorization server's {user}): a target may declare a gateway alone.
func (gw *gatewaySteps) start() {
	gw.routes = map[string]string{}
	gw.client = core.NewRestyClient(gatewayClient(gw.Run), gw.Record)
	gw.Vars["other_route"], gw.Vars["other_host"] = gw.Names.Route+"-other", "other-"+gw.Names.Host
	gw.Vars["caller"] = "tck-caller-" + gw.ID()
}

func (gw *gatewaySteps) register(sc *godog.ScenarioContext) {
	gw.start()
	sc.Step(`^an upstream that counts the requests it receives$`, gw.upstreamRuns)
	sc.Step(`^the route "([^"]+)" for the host "([^"]+)" leads to the upstream$`, gw.routeToUpstream)
	sc.Step(`^the policy "([^"]+)" applies to the route(?: "([^"]+)")?$`, gw.applyPolicy)
	sc.Step(`^the invalid policy "([^"]+)" is offered for the route$`, gw.offerPolicy)
	sc.Step(`^(\d+) requests? with "([^"]+)" (?:are|is) sent to the route(?: "([^"]+)")?$`, func(n int, h, route string) error {
		return gw.sendHeaders(n, h, sendOptions{method: "GET", route: route})
	})
	sc.Step(`^(\d+) requests with "([^"]+)" and "([^"]+)" are sent to the route$`, func(n int, h1, h2 string) error {
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
	sc.Step(`^requests (\d+) and (\d+) pass$`, gw.requestsPass)
	sc.Step(`^each request before the last passes with an x-ratelimit-remaining one less than the request before it$`, gw.remainingCountsDown)
	sc.Step(`^request (\d+) is answered 429$`, func(i int) error { return gw.requestLimited(i, nil) })
	sc.Step(`^request (\d+) is answered 429 with the headers:$`, gw.requestLimited)
	sc.Step(`^every answer has the header "([^"]+)" "([^"]+)"$`, gw.everyAnswerHas)
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

// expandTemplate reads a template of features/testdata/gateway and fills in the scenario's names.
func (gw *gatewaySteps) expandTemplate(template string, names map[string]string) (string, error) {
	if _, err := gw.gateway(); err != nil {
		return "", err
	}
	data, err := fs.ReadFile(gw.area.hooks.Manifests, "testdata/gateway/"+template)
	if err != nil {
		return "", fmt.Errorf("no manifest template %s: %w", template, err)
	}
	text := string(data)
	for k, v := range names {
		text = strings.ReplaceAll(text, "{"+k+"}", v)
	}
	return gw.Expand(text)
}

// routeToUpstream applies a route for a host and waits, on every instance, until the gateway routes it (a
// manifest takes effect asynchronously).
func (gw *gatewaySteps) routeToUpstream(ctx context.Context, route, host string) error {
	route, host, err := gw.Expand2(route, host)
	if err != nil {
		return err
	}
	up, err := gw.area.upstreamServer()
	if err != nil {
		return err
	}
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	gw.Vars["gateway"], gw.Vars["upstream_host"], gw.Vars["upstream_port"] = g.GatewayName, up.host, strconv.Itoa(up.port)
	manifest, err := gw.expandTemplate("route.yaml", map[string]string{"route": route, "host": host})
	if err != nil {
		return err
	}
	if err := gw.apply(ctx, route+"-route", []byte(manifest)); err != nil {
		return err
	}
	gw.routes[route] = host
	return gw.onEveryInstance(g, "the gateway to route "+host, func(inst target.GatewayInstance) (bool, error) {
		ex, err := gw.routeRequest(inst.HTTP, "GET", route, map[string]string{"x-tck-probe": core.RandomID()})
		return err == nil && ex.Status != http.StatusNotFound, nil
	})
}

// onEveryInstance waits, 15 seconds at most, until done holds on every gateway instance: each instance loads a
// manifest on its own, and a scenario may send its requests to any of them.
func (gw *gatewaySteps) onEveryInstance(g *target.Gateway, what string, done func(target.GatewayInstance) (bool, error)) error {
	for i, inst := range g.Instances {
		err := gw.Until(15*time.Second, fmt.Sprintf("%s on instance %d (%s)", what, i+1, inst.HTTP), func() (bool, error) {
			return done(inst)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// policyManifest is what the steps read of a BackendTrafficPolicy: the routes it targets and its rules.
type policyManifest struct {
	Spec struct {
		TargetRefs []struct {
			Name string `yaml:"name"`
		} `yaml:"targetRefs"`
		RateLimit struct {
			Global struct {
				Rules []struct {
					ClientSelectors []struct {
						Headers []struct {
							Type  string `yaml:"type"`
							Name  string `yaml:"name"`
							Value string `yaml:"value"`
						} `yaml:"headers"`
					} `yaml:"clientSelectors"`
					Limit struct {
						Unit string `yaml:"unit"`
					} `yaml:"limit"`
				} `yaml:"rules"`
			} `yaml:"global"`
		} `yaml:"rateLimit"`
	} `yaml:"spec"`
}

// unitSeconds are the anchor's window lengths (fixed blocks, not calendar months).
var unitSeconds = map[string]int64{"Second": 1, "Minute": 60, "Hour": 3600, "Day": 86400, "Week": 7 * 86400,
	"Month": 30 * 86400, "Year": 365 * 86400}

// probeHeaders are headers that the policy's first rule selects and that no scenario sends: Exact selectors get
// their value, Distinct ones a fresh value, so the probe spends no counter of the scenario's (a rule without
// selectors counts every request, probes too). x-tck-probe keeps probes out of the upstream's count.
func (p *policyManifest) probeHeaders() map[string]string {
	h := map[string]string{"x-tck-probe": core.RandomID()}
	if rules := p.Spec.RateLimit.Global.Rules; len(rules) > 0 {
		for _, sel := range rules[0].ClientSelectors {
			for _, hs := range sel.Headers {
				h[hs.Name] = "tck-probe-" + core.RandomID()
				if hs.Type != "Distinct" {
					h[hs.Name] = hs.Value
				}
			}
		}
	}
	return h
}

// window is the longest window of the policy's rules.
func (p *policyManifest) window() time.Duration {
	var longest int64
	for _, r := range p.Spec.RateLimit.Global.Rules {
		longest = max(longest, unitSeconds[r.Limit.Unit])
	}
	return time.Duration(longest) * time.Second
}

// applyPolicy applies a policy, waits on every instance until the routes it targets answer with rate-limit
// headers (only the route the step names must: see below), then until the current window has room for a
// scenario: it has run a few seconds (so that the seconds left in it tell a reset at its end from a whole
// window) and has enough left for the scenario's requests to fall into it. A Second window is aligned by the
// step that sends within it.
func (gw *gatewaySteps) applyPolicy(ctx context.Context, template, route string) error {
	route = cmp.Or(route, gw.Names.Route)
	route, err := gw.Expand(route)
	if err != nil {
		return err
	}
	manifest, err := gw.expandTemplate(template, nil)
	if err != nil {
		return err
	}
	var p policyManifest
	if err := yaml.Unmarshal([]byte(manifest), &p); err != nil {
		return fmt.Errorf("the policy %s does not parse: %w", template, err)
	}
	targets := make([]string, 0, len(p.Spec.TargetRefs))
	for _, t := range p.Spec.TargetRefs {
		targets = append(targets, t.Name)
	}
	if !slices.Contains(targets, route) {
		return fmt.Errorf("the policy %s targets %v, not the route %s the step names", template, targets, route)
	}
	for _, r := range targets {
		if _, ok := gw.routes[r]; !ok {
			return fmt.Errorf("the policy %s targets %s, a route this scenario did not apply", template, r)
		}
	}
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	if err := gw.apply(ctx, gw.Names.Route+"-"+strings.TrimSuffix(template, ".yaml"), []byte(manifest)); err != nil {
		return err
	}
	takesEffect := func(r string) error {
		return gw.onEveryInstance(g, "the policy "+template+" to take effect on "+r, func(inst target.GatewayInstance) (bool, error) {
			ex, err := gw.routeRequest(inst.HTTP, "GET", r, p.probeHeaders())
			return err == nil && ex.Header.Get("x-ratelimit-limit") != "", nil
		})
	}
	// The route the step names is the precondition. The policy's other targets are awaited as long, but whether
	// the policy limits them is the behaviour a scenario that names several routes verifies: its outcome steps
	// judge it, and a gateway that leaves one out fails there instead of being reported blocked here.
	if err := takesEffect(route); err != nil {
		return err
	}
	for _, r := range targets {
		if r != route {
			_ = takesEffect(r)
		}
	}
	if win := p.window(); win >= time.Minute {
		return gw.waitForRoom(win, 2*time.Second, 8*time.Second)
	}
	return nil
}

// offerPolicy hands an invalid policy to the gateway, which must refuse it: at once, as an apply command with
// validation does (its failure is the refusal), or when it reads it. Nothing is awaited here: a later policy
// that takes effect shows that the gateway has read this one.
func (gw *gatewaySteps) offerPolicy(ctx context.Context, template string) error {
	if _, err := gw.gateway(); err != nil {
		return err
	}
	manifest, err := gw.expandTemplate(template, nil)
	if err != nil {
		return err
	}
	name := gw.Names.Route + "-" + strings.TrimSuffix(template, ".yaml")
	if err := gw.apply(ctx, name, []byte(manifest)); err != nil {
		return nil // refused when applied; had the apply failed for another reason, so would the next policy's
	}
	return nil
}

// apply hands a manifest to the gateway and registers it to be taken back when the scenario ends (the invalid
// ones too: a gateway that refuses its whole folder for one bad file must not be held back after the run).
func (gw *gatewaySteps) apply(ctx context.Context, name string, manifest []byte) error {
	hooks := gw.area.hooks
	if err := hooks.Apply(ctx, name, manifest); err != nil {
		return err
	}
	var remove func(context.Context) error
	if hooks.Remove != nil {
		remove = func(ctx context.Context) error { return hooks.Remove(ctx, name, manifest) }
	}
	gw.Created("the gateway manifest "+name, remove)
	return nil
}

// windowPosition is how far into its epoch-aligned window of length win the moment t is, and how much is left.
func windowPosition(t time.Time, win time.Duration) (elapsed, left time.Duration) {
	elapsed = time.Duration(t.UnixNano() % int64(win))
	return elapsed, win - elapsed
}

// waitForRoom waits until the current window has run at least ran and has at least left to go.
func (gw *gatewaySteps) waitForRoom(win, ran, left time.Duration) error {
	elapsed, remaining := windowPosition(time.Now(), win)
	switch {
	case remaining < left:
		return gw.Sleep(remaining + ran)
	case elapsed < ran:
		return gw.Sleep(ran - elapsed)
	}
	return nil
}

// waitForWindowStart waits until just after the next boundary of a short window, so that a few requests fit.
func (gw *gatewaySteps) waitForWindowStart(win time.Duration) error {
	_, left := windowPosition(time.Now(), win)
	return gw.Sleep(left + 20*time.Millisecond)
}

// routeRequest sends one request for a route's host to a listener, with headers and a request id, and returns
// its answer (also the scenario's last).
func (gw *gatewaySteps) routeRequest(base, method, route string, headers map[string]string) (*core.Exchange, error) {
	host, ok := gw.routes[route]
	if !ok {
		return nil, fmt.Errorf("the scenario applied no route %s", route)
	}
	h := maps.Clone(headers)
	if h == nil {
		h = map[string]string{}
	}
	h["Host"], h["x-request-id"] = host, "tck-"+core.RandomID()
	ex, err := gw.SendWith(gw.client, core.Request{Method: method, URL: base + "/" + route, Header: h})
	if err != nil {
		return nil, fmt.Errorf("%w (Host %s)", err, host)
	}
	return ex, nil
}

// gatewayClient trusts the gateway's self-signed certificate: the suite tests rate limits, not PKI. As every
// client of the harness, it contacts only the run's origins and bounds the answers' headers (core.NewTransport).
func gatewayClient(run *core.Run) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: core.NewTransport(run.Origins, func(t *http.Transport) {
			t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
		}),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (gw *gatewaySteps) sendHeaders(n int, text string, o sendOptions) error {
	h, err := gw.HeaderLines(text)
	if err != nil {
		return err
	}
	o.headers = h
	return gw.sendToRoute(n, o)
}

func (gw *gatewaySteps) sendToRoute(n int, o sendOptions) error {
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	if o.route, err = gw.Expand(cmp.Or(o.route, gw.Names.Route)); err != nil {
		return err
	}
	// What the target file does not declare is no fault of the gateway's: the scenario is blocked.
	if o.spread == alternately && len(g.Instances) < 2 {
		return core.Blockedf("the target declares %d gateway instance(s); this scenario needs 2 (services.gateway.instances)", len(g.Instances))
	}
	if o.listener == overHTTPS {
		for i, inst := range g.Instances {
			if inst.HTTPS == "" && (i == 0 || o.spread == alternately) {
				return core.Blockedf("the target declares no HTTPS listener for the gateway (services.gateway.instances[%d].https)", i)
			}
		}
	}
	for i := 0; i < n; i++ {
		inst := g.Instances[0]
		if o.spread == alternately {
			inst = g.Instances[i%2]
		}
		base := inst.HTTP
		if o.listener == overHTTPS {
			base = inst.HTTPS
		}
		headers := o.headers
		if len(o.turns) > 0 {
			headers = o.turns[len(gw.answers)%len(o.turns)]
		}
		ex, err := gw.routeRequest(base, o.method, o.route, headers)
		if err != nil {
			return err
		}
		gw.answers = append(gw.answers, ex)
	}
	return nil
}

// sendUntilLimited sends requests with two header values in turn until one is answered 429.
func (gw *gatewaySteps) sendUntilLimited(first, second string, most int) error {
	var turns []map[string]string
	for _, text := range []string{first, second} {
		h, err := gw.HeaderLines(text)
		if err != nil {
			return err
		}
		turns = append(turns, h)
	}
	for i := 0; i < most; i++ {
		if err := gw.sendToRoute(1, sendOptions{method: "GET", turns: turns}); err != nil {
			return err
		}
		if gw.Last.Status == http.StatusTooManyRequests {
			return nil
		}
	}
	return gw.Failf("%d requests passed; the route's limit never answered 429", most)
}

func (gw *gatewaySteps) lastLimitedWith(name, want string) error {
	if err := gw.requestLimited(len(gw.answers), nil); err != nil {
		return err
	}
	if got := gw.Last.Header.Get(name); got != want {
		return gw.Failf("header %s is %q, want %q", name, got, want)
	}
	return nil
}

// answerNo is the answer to request i (from 1), made the scenario's last so that a failure shows it.
func (gw *gatewaySteps) answerNo(i int) (*core.Exchange, error) {
	if i < 1 || i > len(gw.answers) {
		return nil, fmt.Errorf("request %d was not sent (%d were)", i, len(gw.answers))
	}
	a := gw.answers[i-1]
	gw.Last = a
	return a, nil
}

// remaining reads x-ratelimit-remaining of answer i as the integer it must be.
func (gw *gatewaySteps) remaining(i int) (int, error) {
	a, err := gw.answerNo(i)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(a.Header.Get("x-ratelimit-remaining"))
	if err != nil || n < 0 {
		return 0, gw.Failf("request %d: x-ratelimit-remaining %q is not a non-negative integer", i, a.Header.Get("x-ratelimit-remaining"))
	}
	return n, nil
}

func (gw *gatewaySteps) passes(i int) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	if a.Status != http.StatusOK {
		return gw.Failf("request %d: status %d, want 200 from the upstream", i, a.Status)
	}
	return nil
}

func (gw *gatewaySteps) requestPasses(i, remaining int) error {
	if err := gw.passes(i); err != nil {
		return err
	}
	got, err := gw.remaining(i)
	if err != nil {
		return err
	}
	if got != remaining {
		return gw.Failf("request %d: x-ratelimit-remaining %d, want %d", i, got, remaining)
	}
	return nil
}

func (gw *gatewaySteps) requestsPass(i, j int) error {
	if err := gw.passes(i); err != nil {
		return err
	}
	return gw.passes(j)
}

// remainingCountsDown checks that every answer before the last passed, each with one request fewer left than
// the answer before it: the requests spent one counter, whatever their headers.
func (gw *gatewaySteps) remainingCountsDown() error {
	prev := -1
	for i := 1; i < len(gw.answers); i++ {
		if err := gw.passes(i); err != nil {
			return err
		}
		n, err := gw.remaining(i)
		if err != nil {
			return err
		}
		if prev >= 0 && n != prev-1 {
			return gw.Failf("request %d: x-ratelimit-remaining %d, want %d: one less than request %d's", i, n, prev-1, i-1)
		}
		prev = n
	}
	return nil
}

func (gw *gatewaySteps) requestLimited(i int, table *godog.Table) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	if a.Status != http.StatusTooManyRequests {
		return gw.Failf("request %d: status %d, want 429", i, a.Status)
	}
	if table == nil {
		return nil
	}
	for _, row := range table.Rows[1:] {
		name, want := row.Cells[0].Value, row.Cells[1].Value
		got := a.Header.Get(name)
		if got == "" || (want != "any" && got != want) {
			return gw.Failf("request %d: header %s is %q, want %q", i, name, got, want)
		}
	}
	return nil
}

func (gw *gatewaySteps) everyAnswerHas(name, want string) error {
	if len(gw.answers) == 0 {
		return fmt.Errorf("no request was sent before this step: there is no answer to check")
	}
	for i, a := range gw.answers {
		if got := a.Header.Get(name); got != want {
			gw.Last = a
			return gw.Failf("request %d: header %s is %q, want %q", i+1, name, got, want)
		}
	}
	return nil
}

// passUnlimited checks that requests from..to passed and carry no rate-limit header: no rule counted them.
func (gw *gatewaySteps) passUnlimited(from, to int) error {
	if to < from {
		return fmt.Errorf("no request was sent before this step (requests %d to %d): there is no answer to check", from, to)
	}
	for i := from; i <= to; i++ {
		if err := gw.passes(i); err != nil {
			return err
		}
		for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
			if v := gw.Last.Header.Get(h); v != "" {
				return gw.Failf("request %d carries %s: %s; no rule applies to it", i, h, v)
			}
		}
	}
	return nil
}

func (gw *gatewaySteps) upstreamReceived(n int, route string) error {
	route, err := gw.Expand(cmp.Or(route, gw.Names.Route))
	if err != nil {
		return err
	}
	up, err := gw.area.upstreamServer()
	if err != nil {
		return err
	}
	// Probes carry x-tck-probe, and the upstream leaves them out.
	host := gw.routes[route]
	if got := up.count(host); got != n {
		return gw.Failf("the upstream received %d requests for %s, want %d", got, host, n)
	}
	return nil
}

func (gw *gatewaySteps) upstreamReceivedPassed() error {
	passed := 0
	for _, a := range gw.answers {
		if a.Status == http.StatusOK {
			passed++
		}
	}
	return gw.upstreamReceived(passed, "")
}

// resetCountsDown checks x-ratelimit-reset against the seconds left in the request's window, at the moment the
// request was sent and at the moment it was answered (the gateway's moment lies between), one second either
// way for clocks and rounding.
func (gw *gatewaySteps) resetCountsDown(i, window int) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	reset, err := strconv.Atoi(a.Header.Get("x-ratelimit-reset"))
	if err != nil {
		return gw.Failf("x-ratelimit-reset %q is not an integer", a.Header.Get("x-ratelimit-reset"))
	}
	win := int64(window)
	most := win - a.Sent.Unix()%win + 1
	least := win - a.Received.Unix()%win - 1
	if least > most { // the window ended while the request was under way
		least = 0
	}
	if int64(reset) < max(least, 1) || int64(reset) > min(most, win) {
		return gw.Failf("x-ratelimit-reset is %d, want the seconds left in the %d-second window: %d to %d", reset, window,
			max(least, 1), min(most, win))
	}
	return nil
}

func (gw *gatewaySteps) waitForReset(i int) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	reset, err := strconv.Atoi(a.Header.Get("x-ratelimit-reset"))
	if err != nil || reset < 0 || reset > 5 {
		return gw.Failf("x-ratelimit-reset %q: want a few seconds at most", a.Header.Get("x-ratelimit-reset"))
	}
	return gw.Sleep(time.Duration(reset)*time.Second + 50*time.Millisecond)
}

// accessLogWait is how long the access log line of a request may take to appear. Envoy buffers its access-log
// files and writes them every 10 seconds by default (--file-flush-interval-msec, which Envoy Gateway leaves
// alone); the reference every second.
const accessLogWait = 15 * time.Second

// accessLogHas finds the access log line of a request by its x-request-id and checks its fields; the log is
// written asynchronously, so it is read until accessLogWait has passed.
func (gw *gatewaySteps) accessLogHas(i int, table *godog.Table) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	accessLog := gw.area.hooks.AccessLog
	if accessLog == nil {
		return core.Blockedf("the target declares no access log for the gateway (services.gateway.accessLogs)")
	}
	id := a.RequestID
	gw.Vars["request_id"] = id
	var line map[string]any
	what := "the access log line of " + id + " (a gateway that buffers its log must write it within that time: Envoy's --file-flush-interval-msec)"
	err = gw.Until(accessLogWait, what, func() (bool, error) {
		log, err := accessLog()
		if err != nil {
			return false, core.Blockedf("%v", err) // the harness cannot read the files: the gateway is not at fault
		}
		line = findLogLine(log, id)
		return line != nil, nil
	})
	if err != nil {
		return err
	}
	for _, row := range table.Rows[1:] {
		field, want := row.Cells[0].Value, row.Cells[1].Value
		if want, err = gw.Expand(want); err != nil {
			return err
		}
		got, ok := line[field]
		if !ok {
			return fmt.Errorf("the access log line has no field %s\n  line: %s", field, core.MustJSON(line))
		}
		if want != "any" && !logValueIs(got, want) {
			return fmt.Errorf("access log field %s is %s, want %s\n  line: %s", field, core.MustJSON(got), want, core.MustJSON(line))
		}
	}
	return nil
}

// logValueIs compares a field of an access log line with the text a scenario expects: a JSON string with that
// text, or, for a number (the spec does not say whether 429 is written as a number or a string; Envoy writes
// numbers, a text log strings), a JSON number of that value. No other JSON type passes.
func logValueIs(got any, want string) bool {
	switch v := got.(type) {
	case string:
		return v == want
	case float64:
		n, err := strconv.ParseFloat(want, 64)
		return err == nil && n == v
	}
	return false
}

func findLogLine(log, requestID string) map[string]any {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), requestID) {
			continue
		}
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["x-request-id"] == requestID {
			return line
		}
	}
	return nil
}
