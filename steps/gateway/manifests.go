package gateway

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

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
