package gateway

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	return gw.addRoute(ctx, route, host, "route.yaml")
}

// routeOnItsOwn applies the HTTPRoute of a route alone, its Backend having been applied before (with a policy
// that names the route before it exists), and waits until the gateway routes it.
func (gw *gatewaySteps) routeOnItsOwn(ctx context.Context, route, host string) error {
	route, err := gw.Expand(route)
	if err != nil {
		return err
	}
	if !gw.backends[route] {
		return fmt.Errorf("the scenario applied no Backend for the route %s: a policy step that names it before it exists does", route)
	}
	return gw.addRoute(ctx, route, host, "httproute.yaml")
}

// addRoute applies the template of a route (route.yaml: its Backend and HTTPRoute; httproute.yaml: the HTTPRoute
// alone) and waits until the gateway routes its host.
func (gw *gatewaySteps) addRoute(ctx context.Context, route, host, template string) error {
	route, host, err := gw.Expand2(route, host)
	if err != nil {
		return err
	}
	if err := gw.upstreamNames(); err != nil {
		return err
	}
	manifest, err := gw.expandTemplate(template, map[string]string{"route": route, "host": host})
	if err != nil {
		return err
	}
	if err := gw.apply(ctx, route+"-route", []byte(manifest)); err != nil {
		return err
	}
	gw.routes[route] = host
	return gw.untilRouted(route, true)
}

// upstreamNames sets the placeholders of the route templates: the Gateway and the upstream's address.
func (gw *gatewaySteps) upstreamNames() error {
	up, err := gw.area.upstreamServer()
	if err != nil {
		return err
	}
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	gw.Vars["gateway"], gw.Vars["upstream_host"], gw.Vars["upstream_port"] = g.GatewayName, up.host, strconv.Itoa(up.port)
	return nil
}

// applyBackend applies the Backend of a route that does not exist yet (backend.yaml), for a scenario that adds
// the HTTPRoute later on its own.
func (gw *gatewaySteps) applyBackend(ctx context.Context, route string) error {
	if err := gw.upstreamNames(); err != nil {
		return err
	}
	manifest, err := gw.expandTemplate("backend.yaml", map[string]string{"route": route})
	if err != nil {
		return err
	}
	if err := gw.apply(ctx, route+"-backend", []byte(manifest)); err != nil {
		return err
	}
	gw.backends[route] = true
	return nil
}

// untilRouted waits on every instance until the gateway routes the route's host (routed) or answers 404 for it
// (removed).
func (gw *gatewaySteps) untilRouted(route string, routed bool) error {
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	what := "the gateway to route " + gw.routes[route]
	if !routed {
		what = "the gateway to answer 404 for " + gw.routes[route] + ", its route removed"
	}
	return gw.onEveryInstance(g, what, func(inst target.GatewayInstance) (bool, error) {
		ex, err := gw.routeRequest(inst.HTTP, "GET", route, map[string]string{"x-tck-probe": core.RandomID()})
		return err == nil && (ex.Status != http.StatusNotFound) == routed, nil
	})
}

// removeRoute takes a route's manifest back and waits until every instance answers 404 for its host; its
// manifest stays registered, to be taken back at the end should the scenario not add it again.
func (gw *gatewaySteps) removeRoute(ctx context.Context, route string) error {
	route, err := gw.Expand(route)
	if err != nil {
		return err
	}
	manifest, ok := gw.applied[route+"-route"]
	if !ok {
		return fmt.Errorf("the scenario applied no route %s", route)
	}
	if gw.area.hooks.Remove == nil {
		return core.Blockedf("the target gives no way to take a manifest back (services.gateway.delete)")
	}
	if err := gw.area.hooks.Remove(ctx, route+"-route", manifest); err != nil {
		return err
	}
	return gw.untilRouted(route, false)
}

// addRouteAgain applies a removed route's manifest again, as it was, and waits until the gateway routes it.
func (gw *gatewaySteps) addRouteAgain(ctx context.Context, route string) error {
	route, err := gw.Expand(route)
	if err != nil {
		return err
	}
	manifest, ok := gw.applied[route+"-route"]
	if !ok {
		return fmt.Errorf("the scenario applied no route %s", route)
	}
	if err := gw.area.hooks.Apply(ctx, route+"-route", manifest); err != nil {
		return err
	}
	return gw.untilRouted(route, true)
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

// apply hands a manifest to the gateway and registers it to be taken back when the scenario ends (the invalid
// ones too: a gateway that refuses its whole folder for one bad file must not be held back after the run).
func (gw *gatewaySteps) apply(ctx context.Context, name string, manifest []byte) error {
	hooks := gw.area.hooks
	if err := hooks.Apply(ctx, name, manifest); err != nil {
		return err
	}
	if gw.applied == nil {
		gw.applied = map[string][]byte{}
	}
	gw.applied[name] = manifest
	var remove func(context.Context) error
	if hooks.Remove != nil {
		remove = func(ctx context.Context) error { return hooks.Remove(ctx, name, manifest) }
	}
	gw.Created("the gateway manifest "+name, remove)
	return nil
}
