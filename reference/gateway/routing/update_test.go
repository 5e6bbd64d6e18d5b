package routing

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// TestUpdateIsBuild changes, adds and removes routes at random, one or a
// few at a time, and checks after each change that Update gives the table
// and notices Build gives for the same set: the same ports, host names,
// routes in the same order, with the same limits and backends. Updates are
// chained, so that what one leaves is what the next starts from. Where
// Update declines, it must be for its one reason: a policy names a route
// that comes or goes.
func TestUpdateIsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fixed := []manifest.File{
		{Name: "gw.yaml", Data: []byte(gatewayYAML + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: up}
spec: {endpoints: [{ip: {address: 10.0.0.1, port: 80}}, {ip: {address: 10.0.0.2, port: 80}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: up, namespace: other}
spec: {endpoints: [{ip: {address: 10.0.0.3, port: 80}}]}
`)},
		{Name: "policy.yaml", Data: []byte(`apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: per-route}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  rateLimit: {type: Local, local: {rules: [{limit: {requests: 5, unit: Minute}}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: per-gateway}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: eg}]
  rateLimit: {type: Local, local: {rules: [{limit: {requests: 9, unit: Hour}}]}}
`)},
	}
	files := map[string]*manifest.Parsed{}
	for i := range 12 {
		name := fmt.Sprintf("route-%02d.yaml", i)
		files[name] = manifest.ParseFile(manifest.File{Name: name, Data: []byte(randomRoute(rng, i))})
	}
	setOf := func() *manifest.Set {
		t.Helper()
		var parsed []*manifest.Parsed
		for _, f := range fixed {
			parsed = append(parsed, manifest.ParseFile(f))
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			parsed = append(parsed, files[name])
		}
		set, _, err := manifest.Combine(parsed)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	tbl, _, err := Build(setOf(), Options{SelfSigned: selfSigned})
	if err != nil {
		t.Fatal(err)
	}
	updated, declined := 0, 0
	for step := range 400 {
		before := maps.Clone(files)
		for range 1 + rng.IntN(3) {
			i := rng.IntN(16)
			name := fmt.Sprintf("route-%02d.yaml", i)
			delete(files, name)
			if rng.IntN(5) > 0 {
				f := manifest.ParseFile(manifest.File{Name: name, Data: []byte(randomRoute(rng, i))})
				if len(f.Errors()) > 0 {
					t.Fatalf("step %d: generated route refused: %v", step, f.Errors())
				}
				files[name] = f
			}
		}
		var removed, added []*manifest.HTTPRoute
		for i := range 16 {
			name := fmt.Sprintf("route-%02d.yaml", i)
			if was, is := before[name], files[name]; was != is {
				if was != nil {
					removed = append(removed, was.Routes()...)
				}
				if is != nil {
					added = append(added, is.Routes()...)
				}
			}
		}
		set := setOf()
		want, wantNotices, err := Build(set, Options{SelfSigned: selfSigned})
		if err != nil {
			t.Fatal(err)
		}
		got, gotNotices, ok := tbl.Update(set, removed, added)
		if !ok {
			if !namesComingOrGoing(removed, added, "default/r1") {
				t.Fatalf("step %d: Update declined a change no policy depends on", step)
			}
			declined++
			tbl = want
			continue
		}
		updated++
		if g, w := dump(t, got), dump(t, want); g != w {
			t.Fatalf("step %d: Update gives\n%s\nBuild gives\n%s", step, g, w)
		}
		if !slices.Equal(gotNotices, wantNotices) {
			t.Fatalf("step %d: notices\n%v\nwant\n%v", step, gotNotices, wantNotices)
		}
		tbl = got
	}
	if updated < 300 || declined == 0 {
		t.Fatalf("%d updates and %d declined: the test does not exercise both", updated, declined)
	}
}

// namesComingOrGoing tells whether a route with id is only removed or only
// added.
func namesComingOrGoing(removed, added []*manifest.HTTPRoute, id string) bool {
	n := 0
	for _, r := range removed {
		if r.ID() == id {
			n--
		}
	}
	for _, r := range added {
		if r.ID() == id {
			n++
		}
	}
	return n != 0
}

// randomRoute is an HTTPRoute named r<n> (or, renamed, r<n>b) with random
// namespace, host names, parents, matches and backends.
func randomRoute(rng *rand.Rand, n int) string {
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d%s, namespace: %s%s}\nspec:\n",
		n, pick("", "", "b"), pick("default", "default", "other"), pick("", "", `, creationTimestamp: "2020-01-0`+pick("1", "2")+`T00:00:00Z"`))
	fmt.Fprintf(&b, "  parentRefs: [%s]\n", pick("{name: eg, namespace: default}", "{name: eg, namespace: default, sectionName: http}",
		"{name: eg, namespace: default, sectionName: apps}", "{name: eg, namespace: default, port: 443}", "{name: missing}",
		"{name: eg, namespace: default}, {name: eg, namespace: default, sectionName: https}"))
	if h := pick("", "[a.apps.example]", `["*.apps.example"]`, "[b.example, a.apps.example]", `["*.x.apps.example"]`, "[c.example]"); h != "" {
		fmt.Fprintf(&b, "  hostnames: %s\n", h)
	}
	b.WriteString("  rules:\n")
	for range 1 + rng.IntN(3) {
		match := pick("{path: {value: /}}", "{path: {value: /a}}", "{path: {type: Exact, value: /a/b}}",
			`{path: {type: RegularExpression, value: "/r.*"}}`, "{path: {value: /a}, method: POST}",
			`{path: {value: /a}, headers: [{name: x, value: "1"}]}`, `{path: {value: /q}, queryParams: [{name: k, value: "v"}]}`)
		backend := pick("{group: gateway.envoyproxy.io, kind: Backend, name: up}", "{group: gateway.envoyproxy.io, kind: Backend, name: gone}",
			"{name: svc, port: 8080}", "{group: gateway.envoyproxy.io, kind: Backend, name: up, weight: 0}")
		fmt.Fprintf(&b, "    - matches: [%s]\n      backendRefs: [%s]\n", match, backend)
	}
	return b.String()
}

// dump writes out everything a table routes by: ports, host names in the
// order they are tried, routes in precedence order with their limits (as
// the header a first request gets) and backends.
func dump(t *testing.T, tbl *Table) string {
	var b strings.Builder
	for _, p := range tbl.Ports() {
		fmt.Fprintf(&b, "port %d %s %v lookup=%v queries=%d\n", p.Number, p.Protocol, p.Listeners, p.lookup, p.queries)
		var vhosts []*vhost
		for _, h := range slices.Sorted(maps.Keys(p.exact)) {
			vhosts = append(vhosts, p.exact[h])
		}
		vhosts = append(vhosts, p.wild...)
		if p.any != nil {
			vhosts = append(vhosts, p.any)
		}
		for _, v := range vhosts {
			fmt.Fprintf(&b, "  %s\n", v.hostname)
			for _, rt := range v.routes {
				limit := ""
				if rt.Limits != nil {
					limit = headerLimit(t, rt)
				}
				fmt.Fprintf(&b, "    %s %s limit=%q backends=%+v\n", rt.Name, rt.Cluster, limit, *rt.Backends)
			}
		}
	}
	return b.String()
}
