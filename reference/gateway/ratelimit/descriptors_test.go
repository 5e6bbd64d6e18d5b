package ratelimit

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// policyIn parses a BackendTrafficPolicy namespace/name whose
// spec.rateLimit is rateLimit.
func policyIn(t testing.TB, namespace, name, rateLimit string) *manifest.BackendTrafficPolicy {
	t.Helper()
	y := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: " + namespace + "}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  rateLimit:\n    type: Global\n    global:\n      rules:\n" + rateLimit
	set, _, err := manifest.Parse([]manifest.File{{Name: "p.yaml", Data: []byte(y)}})
	if err != nil {
		t.Fatal(err)
	}
	return set.Policies[0]
}

// sameYAML compares documents as data, whatever their layout.
func sameYAML(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := yaml.Unmarshal(got, &g); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if err := yaml.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got:\n%s\nwant (as Envoy Gateway generates it):\n%s", got, want)
	}
}

// TestServiceConfigAsEnvoyGateway: the service's configuration is the one
// Envoy Gateway generates for the same rules. Each case is a file of its
// internal/xds/translator/testdata (in/ and out/ratelimit-config/) on route
// first-route of listener first-listener, with the fields its output sets
// to their zero value left out.
func TestServiceConfigAsEnvoyGateway(t *testing.T) {
	tests := []struct {
		name, rules string
		want        []string // one document per domain, by domain
	}{{
		name: "multiple-shared-and-unshared",
		rules: `        - {clientSelectors: [{headers: [{name: x-user-id, value: one}]}], limit: {requests: 5, unit: Second}, shared: true}
        - {clientSelectors: [{headers: [{name: x-user-id, value: two}]}], limit: {requests: 5, unit: Second}, shared: false}
        - {clientSelectors: [{headers: [{name: x-user-id, value: three}]}], limit: {requests: 5, unit: Second}, shared: true}
        - {clientSelectors: [{headers: [{name: x-user-id, value: four}]}], limit: {requests: 5, unit: Second}, shared: false}
`,
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - {key: rule-0-match-0, value: rule-0-match-0, rate_limit: {requests_per_unit: 5, unit: SECOND}}
      - {key: rule-1-match-0, value: rule-1-match-0, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`, `
domain: test-namespace/test-policy-1
descriptors:
  - key: test-namespace/test-policy-1/rule/0
    value: test-namespace/test-policy-1/rule/0
    descriptors:
      - {key: rule-0-match-0, value: rule-0-match-0, rate_limit: {requests_per_unit: 5, unit: SECOND}}
  - key: test-namespace/test-policy-1/rule/2
    value: test-namespace/test-policy-1/rule/2
    descriptors:
      - {key: rule-1-match-0, value: rule-1-match-0, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`},
	}, {
		name:  "distinct-match",
		rules: "        - {clientSelectors: [{headers: [{name: x-user-id, type: Distinct}]}], limit: {requests: 5, unit: Second}}\n",
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - {key: rule-0-match-0, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`},
	}, {
		name: "global-shadow-mode (header-and-cidr-matches with shadowMode)",
		rules: `        - clientSelectors:
            - headers: [{name: x-user-id, value: one}, {name: x-user-id, value: two}, {name: x-org-id, value: three}]
              sourceCIDR: {type: Exact, value: 0.0.0.0/0}
          limit: {requests: 5, unit: Second}
          shadowMode: true
`,
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - key: rule-0-match-0
        value: rule-0-match-0
        shadow_mode: true
        descriptors:
          - key: rule-0-match-1
            value: rule-0-match-1
            shadow_mode: true
            descriptors:
              - key: rule-0-match-2
                value: rule-0-match-2
                shadow_mode: true
                descriptors:
                  - {key: masked_remote_address, value: 0.0.0.0/0, shadow_mode: true, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`},
	}, {
		name: "method-match",
		rules: `        - {clientSelectors: [{methods: [{value: GET}, {value: PUT}]}], limit: {requests: 5, unit: Second}}
        - {clientSelectors: [{methods: [{value: POST}]}], limit: {requests: 50, unit: Second}}
`,
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - {key: rule-0-method, value: rule-0-method, rate_limit: {requests_per_unit: 5, unit: SECOND}}
      - {key: rule-1-method, value: rule-1-method, rate_limit: {requests_per_unit: 50, unit: SECOND}}
`},
	}, {
		name: "path-match",
		rules: `        - {clientSelectors: [{path: {type: Exact, value: /foo/bar}}], limit: {requests: 5, unit: Second}}
        - {clientSelectors: [{path: {type: RegularExpression, value: /foo/bar}}], limit: {requests: 5, unit: Second}}
`,
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - {key: rule-0-path, value: rule-0-path, rate_limit: {requests_per_unit: 5, unit: SECOND}}
      - {key: rule-1-path, value: rule-1-path, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`},
	}, {
		name:  "distinct-remote-address-match",
		rules: "        - {clientSelectors: [{sourceCIDR: {type: Distinct, value: 192.168.0.0/16}}], limit: {requests: 5, unit: Second}}\n",
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - key: masked_remote_address
        value: 192.168.0.0/16
        descriptors:
          - {key: remote_address, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`},
	}, {
		name:  "multiple-all-match (no selector), Month",
		rules: "        - {limit: {requests: 5, unit: Month}}\n        - {limit: {requests: 10, unit: Year}}\n",
		want: []string{`
domain: first-listener
descriptors:
  - key: first-route
    value: first-route
    descriptors:
      - {key: rule-0-match--1, value: rule-0-match--1, rate_limit: {requests_per_unit: 5, unit: MONTH}}
      - {key: rule-1-match--1, value: rule-1-match--1, rate_limit: {requests_per_unit: 10, unit: YEAR}}
`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := NewRouteOn("first-listener", "first-route", RulesOf(policyIn(t, "test-namespace", "test-policy-1", tt.rules)))
			files, warnings := ServiceConfig([]*Route{rt, rt}) // the same route twice (two hostnames) is added once
			if len(warnings) > 0 {
				t.Errorf("warnings: %q", warnings)
			}
			if len(files) != len(tt.want) {
				t.Fatalf("%d files, want %d", len(files), len(tt.want))
			}
			for i, f := range files {
				sameYAML(t, f.Data, tt.want[i])
			}
		})
	}
}

// TestServiceDescriptors: what a request sends the service, per domain, in
// domain order (Envoy's filters), as Envoy Gateway's rate limit actions make
// Envoy build it.
func TestServiceDescriptors(t *testing.T) {
	p := policyIn(t, "default", "p", `        - clientSelectors: [{headers: [{name: x-user-id, type: Distinct}]}]
          limit: {requests: 3, unit: Minute}
        - clientSelectors: [{headers: [{name: x-tier, value: gold}], methods: [{value: GET}, {value: PUT}]}]
          limit: {requests: 2, unit: Hour}
        - limit: {requests: 100, unit: Day}
          shared: true
        - clientSelectors: [{sourceCIDR: {type: Distinct, value: 10.0.0.0/8}, path: {type: PathPrefix, value: /api}}]
          limit: {requests: 5, unit: Second}
`)
	rt := NewRouteOn("default/eg/http", "httproute/default/r/rule/0/match/0/www_example_com", RulesOf(p))
	const route = "httproute/default/r/rule/0/match/0/www_example_com"
	calls := func(r, ip string, headers ...string) string {
		method, path, _ := strings.Cut(r, " ")
		var out []string
		for _, c := range rt.serviceCalls(request(method, path, headers...), netip.MustParseAddr(ip), false) {
			var ds []string
			for _, d := range c.descriptors {
				var es []string
				for _, e := range d.Entries {
					es = append(es, e.Key+"="+e.Value)
				}
				ds = append(ds, "["+strings.Join(es, " ")+"]")
			}
			out = append(out, c.domain+": "+strings.Join(ds, " "))
		}
		return strings.Join(out, "\n")
	}
	tests := []struct {
		name, request, ip string
		headers           []string
		want              string
	}{
		{"every rule", "GET /api/quotes", "10.1.2.3", []string{"x-user-id", "alice", "x-tier", "gold"},
			"default/eg/http: [" + route + "=" + route + " rule-0-match-0=alice] [" + route + "=" + route + " rule-1-match-0=rule-1-match-0 rule-1-method=rule-1-method] [" +
				route + "=" + route + " rule-2-path=rule-2-path masked_remote_address=10.0.0.0/8 remote_address=10.1.2.3]\n" +
				"default/p: [default/p/rule/2=default/p/rule/2 rule-0-match--1=rule-0-match--1]"},
		{"no selector holds", "POST /other", "192.168.1.1", []string{"x-tier", "silver"},
			"default/p: [default/p/rule/2=default/p/rule/2 rule-0-match--1=rule-0-match--1]"},
		{"a method that does not hold", "DELETE /", "192.168.1.1", []string{"x-tier", "gold", "x-user-id", "bob"},
			"default/eg/http: [" + route + "=" + route + " rule-0-match-0=bob]\n" +
				"default/p: [default/p/rule/2=default/p/rule/2 rule-0-match--1=rule-0-match--1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := calls(tt.request, tt.ip, tt.headers...); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	// A Distinct header sends its first value, as Envoy's request_headers action does.
	r := request("GET", "/")
	r.Header.Add("x-user-id", "carol")
	r.Header.Add("x-user-id", "dave")
	if c := rt.serviceCalls(r, netip.MustParseAddr("192.168.1.1"), false); len(c) == 0 || c[0].descriptors[0].Entries[1].Value != "carol" {
		t.Errorf("first value: %v", c)
	}
}

// TestServiceConfigCollision: two rules of a route that start with the same
// source CIDR collide in the service's configuration (in Envoy Gateway's
// too): with the same keys the second is dropped, with other keys after it
// the service refuses the domain. The gateway says so.
func TestServiceConfigCollision(t *testing.T) {
	p := policyIn(t, "default", "p", `        - {clientSelectors: [{sourceCIDR: {type: Exact, value: 10.0.0.0/8}}], limit: {requests: 5, unit: Second}}
        - {clientSelectors: [{sourceCIDR: {type: Exact, value: 10.0.0.0/8}}], limit: {requests: 50, unit: Minute}}
        - {clientSelectors: [{sourceCIDR: {type: Distinct, value: 10.0.0.0/8}}], limit: {requests: 50, unit: Minute}}
`)
	files, warnings := ServiceConfig([]*Route{NewRouteOn("default/eg/http", "route", RulesOf(p))})
	if len(warnings) != 2 || !strings.Contains(warnings[0], "rule default/p/rule/1 of route has the descriptors of rule default/p/rule/0") ||
		!strings.Contains(warnings[1], "rule default/p/rule/2 of route starts with the descriptor masked_remote_address=10.0.0.0/8 of rule default/p/rule/0") {
		t.Fatalf("warnings: %q", warnings)
	}
	sameYAML(t, files[0].Data, `
domain: default/eg/http
descriptors:
  - key: route
    value: route
    descriptors:
      - {key: masked_remote_address, value: 10.0.0.0/8, rate_limit: {requests_per_unit: 5, unit: SECOND}}
`)
}

// TestWriteServiceConfig: files are replaced when they change, left alone
// otherwise, and removed when their domain is gone; other files stay.
func TestWriteServiceConfig(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "operator.yaml")
	if err := os.WriteFile(other, []byte("domain: theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := ServiceFile{Domain: "a/b/c", Name: serviceFileName("a/b/c"), Data: []byte("domain: a/b/c\n")}
	b := ServiceFile{Domain: "a/p", Name: serviceFileName("a/p"), Data: []byte("domain: a/p\n")}
	if changed, err := WriteServiceConfig(dir, []ServiceFile{a, b}); err != nil || !changed {
		t.Fatalf("first write: %v %v", changed, err)
	}
	if changed, err := WriteServiceConfig(dir, []ServiceFile{a, b}); err != nil || changed {
		t.Fatalf("same files: %v %v", changed, err)
	}
	if changed, err := WriteServiceConfig(dir, []ServiceFile{a}); err != nil || !changed {
		t.Fatalf("b gone: %v %v", changed, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{a.Name, "operator.yaml"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	if a.Name != "gateway-a_b_c-"+a.Name[len("gateway-a_b_c-"):] || !strings.HasSuffix(a.Name, ".yaml") || serviceFileName("a_b/c") == a.Name {
		t.Fatalf("file names: %s %s", a.Name, serviceFileName("a_b/c"))
	}
}
