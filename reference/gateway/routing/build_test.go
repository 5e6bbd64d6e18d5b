package routing

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

const gatewayYAML = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg}
spec:
  gatewayClassName: eg
  listeners:
    - {name: http, protocol: HTTP, port: 80}
    - {name: apps, protocol: HTTP, port: 8080, hostname: "*.apps.example", allowedRoutes: {namespaces: {from: All}}}
    - {name: https, protocol: HTTPS, port: 443}
`

func route(name, spec string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + "}\nspec:\n" + spec
}

func build(t *testing.T, docs ...string) (*Table, []manifest.Notice) {
	t.Helper()
	tbl, notices, err := buildErr(docs...)
	if err != nil {
		t.Fatal(err)
	}
	return tbl, notices
}

func buildErr(docs ...string) (*Table, []manifest.Notice, error) {
	set, notices, err := manifest.Parse([]manifest.File{{Name: "t.yaml", Data: []byte(strings.Join(docs, "\n"))}})
	if err != nil {
		return nil, notices, err
	}
	tbl, more, err := Build(set, Options{SelfSigned: selfSigned})
	return tbl, append(notices, more...), err
}

func selfSigned(host string) (*tls.Certificate, error) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "t"}, NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, err
}

// lookup routes method host path on port and returns the route name ("" for 404).
func lookup(t *testing.T, tbl *Table, port int, method, host, path string, headers ...string) string {
	t.Helper()
	p := tbl.Port(port)
	if p == nil {
		t.Fatalf("port %d not served", port)
	}
	r := httptest.NewRequest(method, "http://"+host+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	if rt := p.Lookup(r); rt != nil {
		return rt.Name
	}
	return ""
}

func TestPrecedence(t *testing.T) {
	tbl, _ := build(t, gatewayYAML,
		route("b", `  parentRefs: [{name: eg, sectionName: http}]
  rules:
    - matches: [{path: {value: /}}]                               # 0: catch-all
    - matches: [{path: {value: /api}}]                            # 1
    - matches: [{path: {value: /api/v1}}]                         # 2: longer prefix
    - matches: [{path: {type: Exact, value: /api/v1}}]             # 3: exact
    - matches: [{path: {type: RegularExpression, value: "/api/v1/.*"}}]  # 4: regex before prefix
    - matches: [{path: {value: /m}, method: POST}]                 # 5: method first
    - matches: [{path: {value: /m}, headers: [{name: a, value: "1"}, {name: b, value: "2"}]}]  # 6
    - matches: [{path: {value: /m}, headers: [{name: a, value: "1"}]}]  # 7
    - matches: [{path: {value: /q}, queryParams: [{name: x, value: "1"}]}]  # 8
    - matches: [{path: {value: /q}}]                               # 9
`),
		route("a", `  parentRefs: [{name: eg, sectionName: http}]
  rules:
    - matches: [{path: {value: /q}}]   # same as b's rule 9: a/ sorts first
`))
	tests := []struct {
		method, path string
		headers      []string
		want         string
	}{
		{"GET", "/", nil, "httproute/default/b/rule/0/match/0/*"},
		{"GET", "/apix", nil, "httproute/default/b/rule/0/match/0/*"},
		{"GET", "/api", nil, "httproute/default/b/rule/1/match/0/*"},
		{"GET", "/api/", nil, "httproute/default/b/rule/1/match/0/*"},
		{"GET", "/api/v1", nil, "httproute/default/b/rule/3/match/0/*"},
		{"GET", "/api/v1/x", nil, "httproute/default/b/rule/4/match/0/*"},
		{"POST", "/m", []string{"a", "1", "b", "2"}, "httproute/default/b/rule/5/match/0/*"},
		{"GET", "/m", []string{"a", "1", "b", "2"}, "httproute/default/b/rule/6/match/0/*"},
		{"GET", "/m", []string{"a", "1"}, "httproute/default/b/rule/7/match/0/*"},
		{"GET", "/m", nil, "httproute/default/b/rule/0/match/0/*"},
		{"GET", "/q?x=1", nil, "httproute/default/b/rule/8/match/0/*"},
		{"GET", "/q?x=2", nil, "httproute/default/a/rule/0/match/0/*"},
	}
	for _, tt := range tests {
		if got := lookup(t, tbl, 80, tt.method, "any.example", tt.path, tt.headers...); got != tt.want {
			t.Errorf("%s %s %v: %s, want %s", tt.method, tt.path, tt.headers, got, tt.want)
		}
	}
}

func TestOlderRouteWins(t *testing.T) {
	tbl, _ := build(t, gatewayYAML,
		route("a", "  parentRefs: [{name: eg, sectionName: http}]\n  rules: [{}]\n"),
		strings.Replace(route("z", "  parentRefs: [{name: eg, sectionName: http}]\n  rules: [{}]\n"), "name: z}", "name: z, creationTimestamp: \"2020-01-01T00:00:00Z\"}", 1))
	if got := lookup(t, tbl, 80, "GET", "h", "/"); got != "httproute/default/z/rule/0/match/0/*" {
		t.Fatal(got)
	}
}

func TestHostnames(t *testing.T) {
	tbl, notices := build(t, gatewayYAML,
		route("exact", "  parentRefs: [{name: eg}]\n  hostnames: [a.apps.example]\n  rules: [{}]\n"),
		route("wild", "  parentRefs: [{name: eg}]\n  hostnames: [\"*.apps.example\"]\n  rules: [{}]\n"),
		route("deep", "  parentRefs: [{name: eg}]\n  hostnames: [\"*.x.apps.example\"]\n  rules: [{}]\n"),
		route("other", "  parentRefs: [{name: eg, sectionName: apps}]\n  hostnames: [other.example]\n  rules: [{}]\n"),
		route("any", "  parentRefs: [{name: eg, sectionName: http}]\n  rules: [{}]\n"))
	tests := []struct {
		port       int
		host, want string
	}{
		{80, "a.apps.example", "httproute/default/exact/rule/0/match/0/a_apps_example"},
		{80, "A.Apps.Example:80", "httproute/default/exact/rule/0/match/0/a_apps_example"},
		{80, "b.apps.example", "httproute/default/wild/rule/0/match/0/*_apps_example"},
		{80, "c.x.apps.example", "httproute/default/deep/rule/0/match/0/*_x_apps_example"},
		{80, "apps.example", "httproute/default/any/rule/0/match/0/*"},
		{80, "127.0.0.1:80", "httproute/default/any/rule/0/match/0/*"},
		// The apps listener's hostname narrows every route to it.
		{8080, "a.apps.example", "httproute/default/exact/rule/0/match/0/a_apps_example"},
		{8080, "b.apps.example", "httproute/default/wild/rule/0/match/0/*_apps_example"},
		{8080, "apps.example", ""},
		{8080, "other.example", ""},
	}
	for _, tt := range tests {
		if got := lookup(t, tbl, tt.port, "GET", tt.host, "/"); got != tt.want {
			t.Errorf("%d %s: %q, want %q", tt.port, tt.host, got, tt.want)
		}
	}
	if !containsNotice(notices, "HTTPRoute default/other: spec.parentRefs[0]: no listener of Gateway default/eg admits the route") {
		t.Errorf("notices: %v", notices)
	}
}

func TestIntersect(t *testing.T) {
	tests := []struct{ l, r, want string }{
		{"", "a.example", "a.example"},
		{"*.example", "", "*.example"},
		{"*.example", "a.example", "a.example"},
		{"a.example", "*.example", "a.example"},
		{"*.example", "*.a.example", "*.a.example"},
		{"*.a.example", "*.example", "*.a.example"},
		{"*.example", "example", "-"},
		{"a.example", "b.example", "-"},
	}
	for _, tt := range tests {
		got, ok := intersect(tt.l, tt.r)
		if !ok {
			got = "-"
		}
		if got != tt.want {
			t.Errorf("intersect(%q, %q) = %q, want %q", tt.l, tt.r, got, tt.want)
		}
	}
}

func TestAllowedRoutes(t *testing.T) {
	other := strings.Replace(route("r", "  parentRefs: [{name: eg, namespace: default}]\n  hostnames: [a.apps.example]\n  rules: [{}]\n"), "name: r}", "name: r, namespace: team}", 1)
	tbl, _ := build(t, gatewayYAML, other)
	if got := lookup(t, tbl, 8080, "GET", "a.apps.example", "/"); got != "httproute/team/r/rule/0/match/0/a_apps_example" {
		t.Errorf("from All: %q", got)
	}
	if got := lookup(t, tbl, 80, "GET", "a.apps.example", "/"); got != "" {
		t.Errorf("from Same admitted another namespace: %q", got)
	}
	kinds := strings.Replace(gatewayYAML, "port: 80}", "port: 80, allowedRoutes: {kinds: [{kind: GRPCRoute}]}}", 1)
	tbl, _ = build(t, kinds, route("r", "  parentRefs: [{name: eg}]\n  rules: [{}]\n"))
	if got := lookup(t, tbl, 80, "GET", "h", "/"); got != "" {
		t.Errorf("kinds without HTTPRoute admitted it: %q", got)
	}
}

func TestBackends(t *testing.T) {
	tbl, notices := build(t, gatewayYAML, route("r", `  parentRefs: [{name: eg, sectionName: http}]
  rules:
    - matches: [{path: {value: /svc}}]
      backendRefs: [{name: quotes, port: 8081}]
    - matches: [{path: {value: /be}}]
      backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: be}]
    - matches: [{path: {value: /missing}}]
      backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: nope}]
    - matches: [{path: {value: /none}}]
    - matches: [{path: {value: /zero}}]
      backendRefs: [{name: a, port: 1, weight: 0}]
    - matches: [{path: {value: /half}}]
      backendRefs: [{name: a, port: 1}, {group: gateway.envoyproxy.io, kind: Backend, name: nope}]
`), `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: be}
spec:
  endpoints: [{ip: {address: "::1", port: 9}}, {fqdn: {hostname: be.example, port: 10}}]
`)
	pick := func(path string) (string, bool) {
		r := httptest.NewRequest("GET", "http://h"+path, nil)
		return tbl.Port(80).Lookup(r).Backends.Pick()
	}
	if a, ok := pick("/svc"); !ok || a != "127.0.0.1:8081" {
		t.Errorf("service: %q %v", a, ok)
	}
	seen := map[string]bool{}
	for range 100 {
		a, _ := pick("/be")
		seen[a] = true
	}
	if !seen["[::1]:9"] || !seen["be.example:10"] || len(seen) != 2 {
		t.Errorf("backend endpoints: %v", seen)
	}
	for _, p := range []string{"/missing", "/none", "/zero"} {
		if a, ok := pick(p); ok {
			t.Errorf("%s: picked %q, want a 500", p, a)
		}
	}
	ok500 := 0
	for range 400 {
		if _, ok := pick("/half"); !ok {
			ok500++
		}
	}
	if ok500 < 120 || ok500 > 280 {
		t.Errorf("half the requests should get 500: %d of 400", ok500)
	}
	for _, want := range []string{"spec.rules[2].backendRefs[0].name: Backend default/nope not found", "spec.rules[3].backendRefs: the rule has no backendRefs",
		"spec.rules[0].backendRefs[0]: Service default/quotes is served by this host: 127.0.0.1:8081"} {
		if !containsNotice(notices, want) {
			t.Errorf("no notice %q in %v", want, notices)
		}
	}
}

func TestPolicies(t *testing.T) {
	policy := func(name, created, kind, target string, requests int) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", creationTimestamp: \"" + created + "\"}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + target + "}]\n" +
			"  rateLimit: {global: {rules: [{limit: {requests: " + string(rune('0'+requests)) + ", unit: Minute}}]}}\n"
	}
	tbl, notices := build(t, gatewayYAML,
		route("limited", "  parentRefs: [{name: eg, sectionName: http}]\n  rules: [{matches: [{path: {value: /l}}]}]\n"),
		route("plain", "  parentRefs: [{name: eg, sectionName: http}]\n  rules: [{matches: [{path: {value: /p}}]}]\n"),
		policy("route-new", "2024-02-01T00:00:00Z", "HTTPRoute", "limited", 2),
		policy("route-old", "2024-01-01T00:00:00Z", "HTTPRoute", "limited", 3),
		policy("gw", "2024-01-01T00:00:00Z", "Gateway", "eg", 5),
		policy("lost", "2024-01-01T00:00:00Z", "HTTPRoute", "nope", 1),
	)
	limitOf := func(path string) string {
		rt := tbl.Port(80).Lookup(httptest.NewRequest("GET", "http://h"+path, nil))
		return headerLimit(t, rt)
	}
	if got := limitOf("/l"); got != "3, 3;w=60" {
		t.Errorf("the oldest route policy wins: %q", got)
	}
	if got := limitOf("/p"); got != "5, 5;w=60" {
		t.Errorf("a route without its own policy takes the Gateway's: %q", got)
	}
	for _, want := range []string{"BackendTrafficPolicy default/route-new: spec.targetRefs[0]: conflicted: HTTPRoute default/limited is already targeted by the older BackendTrafficPolicy default/route-old",
		"BackendTrafficPolicy default/lost: spec.targetRefs[0]: HTTPRoute default/nope not found"} {
		if !containsNotice(notices, want) {
			t.Errorf("no notice %q in %v", want, notices)
		}
	}
}

// A policy Envoy Gateway cannot translate still claims its targets, whose routes answer 500 (no backend to
// pick) and are not limited; one targeting the Gateway does the same to the routes without their own policy.
func TestUntranslatablePolicyMakesItsRoutesAnswer500(t *testing.T) {
	const distinctInvert = "  rateLimit: {global: {rules: [{clientSelectors: [{headers: [{name: x, type: Distinct, invert: true}]}], limit: {requests: 1, unit: Minute}}]}}\n"
	policy := func(name, kind, target, rateLimit string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + "}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + target + "}]\n" + rateLimit
	}
	backend := "  parentRefs: [{name: eg, sectionName: http}]\n  rules: [{matches: [{path: {value: /%s}}], backendRefs: [{name: svc, port: 8081}]}]\n"
	tbl, _ := build(t, gatewayYAML,
		route("bad", strings.ReplaceAll(backend, "%s", "b")),
		route("good", strings.ReplaceAll(backend, "%s", "g")),
		route("own", strings.ReplaceAll(backend, "%s", "o")),
		policy("bad", "HTTPRoute", "bad", distinctInvert),
		policy("good", "HTTPRoute", "good", "  rateLimit: {global: {rules: [{limit: {requests: 1, unit: Minute}}]}}\n"),
	)
	answers := func(tbl *Table, path string) (*Route, bool) {
		rt := tbl.Port(80).Lookup(httptest.NewRequest("GET", "http://h"+path, nil))
		if rt == nil {
			t.Fatalf("%s: not routed", path)
		}
		_, ok := rt.Backends.Pick()
		return rt, ok
	}
	if rt, ok := answers(tbl, "/b"); ok || rt.Limits != nil {
		t.Errorf("the route of a policy that cannot be translated: a backend picked %v, limits %v; want 500 and no limit", ok, rt.Limits)
	}
	if rt, ok := answers(tbl, "/g"); !ok || headerLimit(t, rt) != "1, 1;w=60" {
		t.Errorf("the route of a valid policy: a backend picked %v, limit %q", ok, headerLimit(t, rt))
	}
	gw, _ := build(t, gatewayYAML, route("own", strings.ReplaceAll(backend, "%s", "o")), route("plain", strings.ReplaceAll(backend, "%s", "p")),
		policy("own", "HTTPRoute", "own", "  rateLimit: {global: {rules: [{limit: {requests: 2, unit: Minute}}]}}\n"),
		policy("gw", "Gateway", "eg", distinctInvert))
	if _, ok := answers(gw, "/p"); ok {
		t.Error("a route under a Gateway policy that cannot be translated picked a backend; want 500")
	}
	if rt, ok := answers(gw, "/o"); !ok || headerLimit(t, rt) != "2, 2;w=60" {
		t.Errorf("a route with a valid policy of its own, under a Gateway policy that cannot be translated: a backend picked %v, limit %q", ok, headerLimit(t, rt))
	}
}

func TestConflictsAndCertificatesAreErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"protocol", gatewayYAML + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: two}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: x, protocol: HTTPS, port: 80}]\n",
			"t.yaml:16: Gateway default/two: spec.listeners[0].protocol: port 80 is already served over HTTP by Gateway default/eg listener \"http\""},
		{"hostname", strings.Replace(gatewayYAML, "port: 443}", "port: 443}\n    - {name: again, protocol: HTTP, port: 80}", 1),
			"Gateway default/eg: spec.listeners[3].hostname: port 80 with hostname \"\" is already served"},
		{"secret", strings.Replace(gatewayYAML, "port: 443}", "port: 443, tls: {certificateRefs: [{name: nope}]}}", 1),
			"Gateway default/eg: spec.listeners[2].tls.certificateRefs[0].name: Secret default/nope not found"},
		{"secret type", strings.Replace(gatewayYAML, "port: 443}", "port: 443, tls: {certificateRefs: [{name: op}]}}", 1) + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: op}\ntype: Opaque\n",
			"Secret default/op has type \"Opaque\""},
	}
	for _, tt := range tests {
		tbl, _, err := buildErr(tt.yaml)
		var errs manifest.Errors
		if tbl != nil || !errors.As(err, &errs) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestHTTPSPort(t *testing.T) {
	tbl, _ := build(t, gatewayYAML)
	ports := tbl.Ports()
	if len(ports) != 3 || ports[0].Number != 80 || ports[1].Protocol != "HTTPS" || ports[1].TLS == nil || ports[0].TLS != nil {
		t.Fatalf("%+v", ports)
	}
	c, err := ports[1].TLS.GetCertificate(&tls.ClientHelloInfo{ServerName: "x.example"})
	if err != nil || c == nil {
		t.Fatal(err)
	}
}

func containsNotice(ns []manifest.Notice, want string) bool {
	for _, n := range ns {
		if strings.Contains(n.String(), want) {
			return true
		}
	}
	return false
}
