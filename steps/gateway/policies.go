package gateway

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

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
							Type   string `yaml:"type"`
							Name   string `yaml:"name"`
							Value  string `yaml:"value"`
							Invert bool   `yaml:"invert"`
						} `yaml:"headers"`
					} `yaml:"clientSelectors"`
					Limit struct {
						Requests int64  `yaml:"requests"`
						Unit     string `yaml:"unit"`
					} `yaml:"limit"`
				} `yaml:"rules"`
			} `yaml:"global"`
		} `yaml:"rateLimit"`
	} `yaml:"spec"`
}

// appliedPolicy is a policy a scenario applied: the template, the manifest's name and what the steps read of it.
type appliedPolicy struct {
	template, name string
	manifest       policyManifest
}

// unitSeconds are the anchor's window lengths (fixed blocks, not calendar months).
var unitSeconds = map[string]int64{"Second": 1, "Minute": 60, "Hour": 3600, "Day": 86400, "Week": 7 * 86400,
	"Month": 30 * 86400, "Year": 365 * 86400}

// probeHeaders are headers that the policy's first rule selects and that no scenario sends: Exact selectors get
// their value, Distinct ones and inverted Exact ones a fresh value, so the probe spends no counter of the
// scenario's (a rule without selectors counts every request, probes too). x-tck-probe keeps probes out of the
// upstream's count.
func (p *policyManifest) probeHeaders() map[string]string {
	h := map[string]string{"x-tck-probe": core.RandomID()}
	exact := map[string]bool{}
	if rules := p.Spec.RateLimit.Global.Rules; len(rules) > 0 {
		for _, sel := range rules[0].ClientSelectors {
			for _, hs := range sel.Headers {
				name := strings.ToLower(hs.Name)
				switch {
				case hs.Type != "Distinct" && !hs.Invert:
					h[name], exact[name] = hs.Value, true
				case !exact[name]:
					h[name] = "tck-probe-" + core.RandomID()
				}
			}
		}
	}
	return h
}

// limitHeader is the x-ratelimit-limit a request that only the policy's first rule counts gets.
func (p *policyManifest) limitHeader() (string, error) {
	rules := p.Spec.RateLimit.Global.Rules
	if len(rules) != 1 {
		return "", fmt.Errorf("the policy has %d rules; a step that awaits its limit needs one", len(rules))
	}
	l := rules[0].Limit
	return fmt.Sprintf("%d, %d;w=%d", l.Requests, l.Requests, unitSeconds[l.Unit]), nil
}

// window is the longest window of the policy's rules.
func (p *policyManifest) window() time.Duration {
	var longest int64
	for _, r := range p.Spec.RateLimit.Global.Rules {
		longest = max(longest, unitSeconds[r.Limit.Unit])
	}
	return time.Duration(longest) * time.Second
}

func (p *policyManifest) targets() []string {
	out := make([]string, 0, len(p.Spec.TargetRefs))
	for _, t := range p.Spec.TargetRefs {
		out = append(out, t.Name)
	}
	return out
}

// readPolicy fills a template in and reads it, checking that it names the route; a route it names that the
// scenario did not apply is an error, but for later (a route the scenario adds after the policy).
func (gw *gatewaySteps) readPolicy(template, route, later string) (string, *appliedPolicy, error) {
	manifest, err := gw.expandTemplate(template, nil)
	if err != nil {
		return "", nil, err
	}
	p := &appliedPolicy{template: template, name: gw.Names.Route + "-" + strings.TrimSuffix(template, ".yaml")}
	if err := yaml.Unmarshal([]byte(manifest), &p.manifest); err != nil {
		return "", nil, fmt.Errorf("the policy %s does not parse: %w", template, err)
	}
	targets := p.manifest.targets()
	if !slices.Contains(targets, route) {
		return "", nil, fmt.Errorf("the policy %s targets %v, not the route %s the step names", template, targets, route)
	}
	for _, r := range targets {
		if _, ok := gw.routes[r]; !ok && r != later {
			return "", nil, fmt.Errorf("the policy %s targets %s, a route this scenario did not apply", template, r)
		}
	}
	return manifest, p, nil
}

// applyPolicy applies a policy, waits on every instance until the routes it targets answer with rate-limit
// headers (only the route the step names must: see below), then until the current window has room for a
// scenario: it has run a few seconds (so that the seconds left in it tell a reset at its end from a whole
// window) and has enough left for the scenario's requests to fall into it. A Second window is aligned by the
// step that sends within it.
func (gw *gatewaySteps) applyPolicy(ctx context.Context, template, route string) error {
	return gw.applyPolicyBefore(ctx, template, route, "")
}

// applyPolicyBefore is applyPolicy for a policy that also names a route the scenario adds later (none when
// later is empty): that route's Backend is applied first, so that the route can come on its own.
func (gw *gatewaySteps) applyPolicyBefore(ctx context.Context, template, route, later string) error {
	route, later, err := gw.Expand2(cmp.Or(route, gw.Names.Route), later)
	if err != nil {
		return err
	}
	manifest, p, err := gw.readPolicy(template, route, later)
	if err != nil {
		return err
	}
	if later != "" {
		if !slices.Contains(p.manifest.targets(), later) {
			return fmt.Errorf("the policy %s does not name the route %s", template, later)
		}
		if err := gw.applyBackend(ctx, later); err != nil {
			return err
		}
	}
	if err := gw.apply(ctx, p.name, []byte(manifest)); err != nil {
		return err
	}
	gw.policy = p
	// The route the step names is the precondition. The policy's other targets are awaited as long, but whether
	// the policy limits them is the behaviour a scenario that names several routes verifies: its outcome steps
	// judge it, and a gateway that leaves one out fails there instead of being reported blocked here.
	if err := gw.policyTakesEffect(route); err != nil {
		return err
	}
	for _, r := range p.manifest.targets() {
		if _, ok := gw.routes[r]; ok && r != route {
			_ = gw.policyTakesEffect(r)
		}
	}
	if win := p.manifest.window(); win >= time.Minute {
		return gw.waitForRoom(win, 2*time.Second, 8*time.Second)
	}
	return nil
}

// policyTakesEffect waits on every instance until the route answers a probe the scenario's policy selects with
// rate-limit headers.
func (gw *gatewaySteps) policyTakesEffect(route string) error {
	return gw.policyHasLimit(route, "")
}

// policyHasLimit waits on every instance until the route answers a probe the scenario's policy selects with the
// x-ratelimit-limit want (any, when empty).
func (gw *gatewaySteps) policyHasLimit(route, want string) error {
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	p := gw.policy
	if p == nil {
		return fmt.Errorf("the scenario applied no policy before this step")
	}
	what := "the policy " + p.template + " to take effect on " + route
	if want != "" {
		what += " with x-ratelimit-limit " + want
	}
	return gw.onEveryInstance(g, what, func(inst target.GatewayInstance) (bool, error) {
		ex, err := gw.routeRequest(inst.HTTP, "GET", route, p.manifest.probeHeaders())
		got := ""
		if err == nil {
			got = ex.Header.Get("x-ratelimit-limit")
		}
		return got != "" && (want == "" || got == want), nil
	})
}

// takesEffectOn is the step that waits for the scenario's policy on a route (the scenario's own by default).
func (gw *gatewaySteps) takesEffectOn(route string) error {
	route, err := gw.Expand(cmp.Or(route, gw.Names.Route))
	if err != nil {
		return err
	}
	if _, ok := gw.routes[route]; !ok {
		return fmt.Errorf("the scenario applied no route %s", route)
	}
	return gw.policyTakesEffect(route)
}

// changePolicy applies a new version of the scenario's policy (another template, the same resource) under the
// manifest name of the first, and waits on every instance until the route answers with the new version's limit.
// The first version's registration takes the policy back at the end.
func (gw *gatewaySteps) changePolicy(ctx context.Context, from, to string) error {
	p := gw.policy
	if p == nil || p.template != from {
		return fmt.Errorf("the scenario did not apply the policy %s before this step", from)
	}
	manifest, next, err := gw.readPolicy(to, gw.Names.Route, "")
	if err != nil {
		return err
	}
	want, err := next.manifest.limitHeader()
	if err != nil {
		return err
	}
	if err := gw.area.hooks.Apply(ctx, p.name, []byte(manifest)); err != nil {
		return err
	}
	next.name = p.name
	gw.policy = next
	return gw.policyHasLimit(gw.Names.Route, want)
}

// offerPolicy hands an invalid policy to the gateway, which must refuse it: at once, as an apply command with
// validation does (its failure is the refusal, and its output must name field, where Kubernetes's API server
// says what it refuses), or when it reads it. Nothing is awaited here: a later policy that takes effect shows
// that the gateway has read this one.
func (gw *gatewaySteps) offerPolicy(ctx context.Context, template, field string) error {
	if _, err := gw.gateway(); err != nil {
		return err
	}
	manifest, err := gw.expandTemplate(template, nil)
	if err != nil {
		return err
	}
	name := gw.Names.Route + "-" + strings.TrimSuffix(template, ".yaml")
	err = gw.apply(ctx, name, []byte(manifest))
	if err != nil && field != "" && !strings.Contains(err.Error(), field) {
		return gw.Failf("the apply command refused %s without naming %s, the field at fault: %v", template, field, err)
	}
	return nil // refused when applied (had the apply failed for another reason, so would the next policy's), or later
}

// applyUntranslatable applies a policy that Envoy Gateway's API stores but its translator cannot turn into a rate
// limit. Nothing is awaited here: the next step waits for the gateway's answer.
func (gw *gatewaySteps) applyUntranslatable(ctx context.Context, template string) error {
	manifest, p, err := gw.readPolicy(template, gw.Names.Route, "")
	if err != nil {
		return err
	}
	return gw.apply(ctx, p.name, []byte(manifest))
}

// routeAnswers500 waits on every instance until the route answers 500, as Envoy Gateway's routes do while a
// policy that targets them is not accepted.
func (gw *gatewaySteps) routeAnswers500() error {
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	route := gw.Names.Route
	return gw.onEveryInstance(g, "the route "+route+" to answer 500", func(inst target.GatewayInstance) (bool, error) {
		ex, err := gw.routeRequest(inst.HTTP, "GET", route, map[string]string{"x-tck-probe": core.RandomID()})
		return err == nil && ex.Status == http.StatusInternalServerError, nil
	})
}
