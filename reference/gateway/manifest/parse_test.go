package manifest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const validSet = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: eg
spec:
  gatewayClassName: eg
  listeners:
    - name: http
      protocol: HTTP
      port: 10080
    - name: https
      protocol: HTTPS
      port: 10443
      hostname: "*.example.local"
      tls:
        certificateRefs:
          - name: cert
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: quotes
  namespace: default
  creationTimestamp: "2024-01-02T15:04:05Z"
spec:
  parentRefs:
    - name: eg
  hostnames: ["fortune.example.local"]
  rules:
    - matches:
        - path: {type: PathPrefix, value: /api}
          headers: [{name: x-env, value: prod}]
          queryParams: [{name: q, type: RegularExpression, value: "a.*"}]
          method: GET
      backendRefs:
        - group: gateway.envoyproxy.io
          kind: Backend
          name: quotes
        - name: quotes-svc
          port: 8081
          weight: 0
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata:
  name: quotes
spec:
  endpoints:
    - ip: {address: 127.0.0.1, port: 8081}
    - fqdn: {hostname: quotes.example.local, port: 8081}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: policy
spec:
  targetRefs:
    - group: gateway.networking.k8s.io
      kind: HTTPRoute
      name: quotes
  rateLimit:
    type: Global
    global:
      rules:
        - clientSelectors:
            - headers:
                - name: x-user-id
                  type: Distinct
              sourceCIDR: {type: Distinct, value: 10.0.0.1/8}
              methods: [{value: GET}]
              path: {value: /api}
          limit:
            requests: 3
            unit: Minute
          shared: true
`

func TestParseValidSet(t *testing.T) {
	set, notices, err := Parse([]File{{Name: "all.yaml", Data: []byte(validSet + secretYAML(t, "cert"))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(notices) != 0 {
		t.Errorf("notices: %v", notices)
	}
	if len(set.Gateways) != 1 || len(set.Routes) != 1 || len(set.Backends) != 1 || len(set.Policies) != 1 || len(set.Secrets) != 1 {
		t.Fatalf("set: %+v", set)
	}
	g := set.Gateways[0]
	if len(g.Listeners) != 2 || g.Listeners[1].Hostname != "*.example.local" || g.Listeners[1].Certificates[0].Name != "cert" {
		t.Errorf("gateway: %+v", g.Listeners)
	}
	r := set.Routes[0]
	m := r.Rules[0].Matches[0]
	if r.Created.Year() != 2024 || m.PathValue != "/api" || m.Method != "GET" || m.Query[0].RE == nil || m.Headers[0].Value != "prod" {
		t.Errorf("route: %+v %+v", r, m)
	}
	if b := r.Rules[0].Backends; b[0].Kind != "Backend" || b[1].Kind != "Service" || b[1].Weight != 0 || b[0].Weight != 1 {
		t.Errorf("backends: %+v %+v", b[0], b[1])
	}
	rule := set.Policies[0].Global[0]
	sel := rule.Selectors[0]
	if rule.Requests != 3 || rule.Window != time.Minute || !rule.Shared || sel.Headers[0].Type != MatchDistinct ||
		sel.Source.Prefix.String() != "10.0.0.0/8" || !sel.Source.Distinct || sel.Methods[0].Method != "GET" || sel.Path.Value != "/api" {
		t.Errorf("rule: %+v %+v", rule, sel)
	}
	if set.Secrets[0].Certificate == nil {
		t.Error("secret certificate not parsed")
	}
}

// TestParseErrors checks that every refusal names the file, the resource
// and the field a person has to edit.
func TestParseErrors(t *testing.T) {
	route := func(spec string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n" + spec
	}
	policy := func(spec string) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: p, namespace: ns}\nspec:\n" + spec
	}
	const target = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
	gateway := func(listeners string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g}\nspec:\n  gatewayClassName: eg\n  listeners:\n" + listeners
	}
	tests := []struct {
		name, yaml, resource, field, msg string
	}{
		{"syntax", "kind: [", "document 1", "", "invalid YAML"},
		{"not an object", "- a\n- b\n", "document 1", "", "must be an object"},
		{"no kind", "apiVersion: v1\nmetadata: {name: x}\n", "document 1", "kind", "is required"},
		{"no name", "apiVersion: v1\nkind: Secret\nmetadata: {}\n", "document 1", "metadata.name", "is required"},
		{"bad name", "apiVersion: v1\nkind: Secret\nmetadata: {name: Bad_Name}\n", "Secret default/Bad_Name", "metadata.name", "not a valid name"},
		{"bad namespace", "apiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: a.b}\n", "Secret a.b/a", "metadata.namespace", "not a valid namespace"},
		{"bad timestamp", "apiVersion: v1\nkind: Secret\nmetadata: {name: a, creationTimestamp: yesterday}\n", "Secret default/a", "metadata.creationTimestamp", "RFC 3339"},
		{"wrong version", "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: HTTPRoute\nmetadata: {name: r}\n", "HTTPRoute default/r", "apiVersion", "not served for kind HTTPRoute"},
		{"duplicate key", route("  hostnames: [a.example]\n  hostnames: [b.example]\n"), "HTTPRoute default/r", "spec.hostnames", "appears twice"},
		{"duplicate resource", route("  rules: []\n") + "---\n" + route("  rules: []\n"), "HTTPRoute default/r", "metadata.name", "defined twice (first in f.yaml:1)"},
		{"list item", "apiVersion: v1\nkind: List\nitems:\n  - " + strings.ReplaceAll(route("  hostnames: [\"Bad\"]\n"), "\n", "\n    "), "HTTPRoute default/r", "items[0].spec.hostnames[0]", "not a valid hostname"},

		{"gateway no listeners", gateway("    []\n"), "Gateway default/g", "", ""},
		{"listener port", gateway("    - {name: h, protocol: HTTP, port: 0}\n"), "Gateway default/g", "spec.listeners[0].port", "from 1 to 65535"},
		{"listener port string", gateway("    - {name: h, protocol: HTTP, port: \"80\"}\n"), "Gateway default/g", "spec.listeners[0].port", "must be an integer"},
		{"listener protocol", gateway("    - {name: h, protocol: HTTP3, port: 80}\n"), "Gateway default/g", "spec.listeners[0].protocol", "unsupported protocol \"HTTP3\""},
		{"listener name twice", gateway("    - {name: h, protocol: HTTP, port: 80}\n    - {name: h, protocol: HTTP, port: 81}\n"), "Gateway default/g", "spec.listeners[1].name", "used twice"},
		{"http with tls", gateway("    - {name: h, protocol: HTTP, port: 80, tls: {}}\n"), "Gateway default/g", "spec.listeners[0].tls", "must not be set"},
		{"listener hostname", gateway("    - {name: h, protocol: HTTP, port: 80, hostname: 10.0.0.1}\n"), "Gateway default/g", "spec.listeners[0].hostname", "no IP address"},
		{"tls mode", gateway("    - {name: h, protocol: HTTPS, port: 443, tls: {mode: Mirror}}\n"), "Gateway default/g", "spec.listeners[0].tls.mode", "valid: Terminate, Passthrough"},
		{"allowed from", gateway("    - {name: h, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Some}}}\n"), "Gateway default/g", "spec.listeners[0].allowedRoutes.namespaces.from", "unsupported value"},

		{"path type", route("  rules:\n    - matches: [{path: {type: Prefix, value: /}}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].path.type", `unsupported value "Prefix"; valid: Exact, PathPrefix, RegularExpression`},
		{"path value", route("  rules:\n    - matches: [{path: {value: api}}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].path.value", "must start with /"},
		{"path dots", route("  rules:\n    - matches: [{path: {value: /a/../b}}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].path.value", "must not contain"},
		{"path regex", route("  rules:\n    - matches: [{path: {type: RegularExpression, value: \"(\"}}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].path.value", "invalid regular expression"},
		{"header name", route("  rules:\n    - matches: [{headers: [{name: \"a b\", value: x}]}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].headers[0].name", "not a valid HTTP header name"},
		{"header value", route("  rules:\n    - matches: [{headers: [{name: a}]}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].headers[0].value", "is required"},
		{"method", route("  rules:\n    - matches: [{method: get}]\n"), "HTTPRoute default/r", "spec.rules[0].matches[0].method", "unsupported value \"get\""},
		{"backend port", route("  rules:\n    - backendRefs: [{name: svc}]\n"), "HTTPRoute default/r", "spec.rules[0].backendRefs[0].port", "required for a Service"},
		{"backend weight", route("  rules:\n    - backendRefs: [{name: svc, port: 80, weight: -1}]\n"), "HTTPRoute default/r", "spec.rules[0].backendRefs[0].weight", "from 0 to 1000000"},
		{"route hostname", route("  hostnames: [\"*\"]\n"), "HTTPRoute default/r", "spec.hostnames[0]", "not a valid hostname"},
		{"parent name", route("  parentRefs: [{}]\n"), "HTTPRoute default/r", "spec.parentRefs[0].name", "is required"},
		{"rules not a list", route("  rules: {a: 1}\n"), "HTTPRoute default/r", "spec.rules", "must be a list"},

		{"backend no endpoints", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b}\nspec: {}\n", "Backend default/b", "spec.endpoints", "at least one endpoint"},
		{"backend ip", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b}\nspec:\n  endpoints: [{ip: {address: localhost, port: 80}}]\n", "Backend default/b", "spec.endpoints[0].ip.address", "not an IP address"},
		{"backend both", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b}\nspec:\n  endpoints: [{ip: {address: 127.0.0.1, port: 80}, fqdn: {hostname: a, port: 80}}]\n", "Backend default/b", "spec.endpoints[0]", "exactly one of ip, fqdn or unix"},
		{"backend port", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b}\nspec:\n  endpoints: [{fqdn: {hostname: a.example}}]\n", "Backend default/b", "spec.endpoints[0].fqdn.port", "is required"},

		{"policy no target", policy("  rateLimit: {type: Global, global: {rules: []}}\n"), "BackendTrafficPolicy ns/p", "spec.targetRefs", "is required"},
		{"policy both targets", policy(target + "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}\n"), "BackendTrafficPolicy ns/p", "spec.targetRefs", "not both"},
		{"policy target group", policy("  targetRefs: [{group: apps, kind: HTTPRoute, name: r}]\n"), "BackendTrafficPolicy ns/p", "spec.targetRefs[0].group", "must be gateway.networking.k8s.io"},
		{"policy target kind", policy("  targetRefs: [{group: gateway.networking.k8s.io, kind: Service, name: r}]\n"), "BackendTrafficPolicy ns/p", "spec.targetRefs[0].kind", "unsupported value \"Service\""},
		{"policy section", policy("  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: a}\n"), "BackendTrafficPolicy ns/p", "spec.targetRef.sectionName", "not supported"},
		{"rate limit type", policy(target + "  rateLimit: {type: Regional}\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.type", "valid: Global, Local"},
		{"global missing", policy(target + "  rateLimit: {type: Global}\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global", "required when type is Global"},
		{"unit", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 3, unit: Minutes}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].limit.unit", `unsupported value "Minutes"; valid: Second, Minute, Hour, Day, Week, Month, Year`},
		{"requests", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: -1, unit: Minute}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].limit.requests", "from 0 to"},
		{"requests string", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: three, unit: Minute}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].limit.requests", "must be an integer"},
		{"no limit", policy(target + "  rateLimit:\n    local:\n      rules: [{}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.local.rules[0].limit", "is required"},
		{"empty selector", policy(target + "  rateLimit:\n    global:\n      rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Second}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].clientSelectors[0]", "at least one of headers"},
		{"header type", policy(target + "  rateLimit:\n    global:\n      rules: [{clientSelectors: [{headers: [{name: x, type: Prefix, value: a}]}], limit: {requests: 1, unit: Second}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].clientSelectors[0].headers[0].type", "valid: Exact, RegularExpression, Distinct"},
		{"cidr", policy(target + "  rateLimit:\n    global:\n      rules: [{clientSelectors: [{sourceCIDR: {value: 10.0.0.1}}], limit: {requests: 1, unit: Second}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].clientSelectors[0].sourceCIDR.value", "not a CIDR"},
		{"shared", policy(target + "  rateLimit:\n    global:\n      rules: [{shared: yes, limit: {requests: 1, unit: Second}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].shared", "must be true or false"},
		{"cost negative", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Number, number: -1}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.number", "from 0 to 1000000000, not -1"},
		{"cost not a number", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Number, number: two}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.number", "must be an integer, not \"two\""},
		{"cost too large", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {response: {from: Number, number: 1000000001}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.response.number", "from 0 to 1000000000"},
		{"cost from header", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Header, number: 2}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.from", "unsupported value \"Header\"; valid: Number, Metadata"},
		{"cost without from", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {number: 2}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.from", "is required"},
		{"cost number and metadata", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Number, number: 2, metadata: {namespace: a, key: b}}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.metadata", "only one of number or metadata"},
		{"cost number missing", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Number}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.number", "is required when from is Number"},
		{"cost metadata key", policy(target + "  rateLimit:\n    global:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {request: {from: Metadata, metadata: {namespace: a}}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.global.rules[0].cost.request.metadata.key", "is required"},
		{"local response cost", policy(target + "  rateLimit:\n    local:\n      rules: [{limit: {requests: 1, unit: Second}, cost: {response: {from: Number, number: 1}}}]\n"), "BackendTrafficPolicy ns/p", "spec.rateLimit.local.rules[0].cost.response", "not supported for Local"},

		{"secret no key", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/tls\ndata: {tls.crt: AAAA}\n", "Secret default/s", "data.tls.key", "is required"},
		{"secret base64", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/tls\ndata: {tls.crt: \"!!\", tls.key: AAAA}\n", "Secret default/s", "data.tls.crt", "not base64"},
		{"secret pair", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/tls\nstringData: {tls.crt: a, tls.key: b}\n", "Secret default/s", "stringData.tls.crt", "not a usable key pair"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, _, err := Parse([]File{{Name: "f.yaml", Data: []byte(tt.yaml)}})
			if tt.msg == "" { // valid: nothing to refuse
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var errs Errors
			if !errors.As(err, &errs) || set != nil {
				t.Fatalf("want Errors and no set, got %v, %v", set, err)
			}
			for _, e := range errs {
				if e.File == "f.yaml" && e.Resource == tt.resource && e.Field == tt.field && strings.Contains(e.Msg, tt.msg) {
					if !strings.HasPrefix(e.Error(), "f.yaml:") {
						t.Errorf("message does not start with the file: %s", e)
					}
					return
				}
			}
			t.Fatalf("no error with resource %q, field %q, message %q in:\n%v", tt.resource, tt.field, tt.msg, err)
		})
	}
}

func TestParseErrorsOfSeveralFilesAreAllReported(t *testing.T) {
	_, _, err := Parse([]File{
		{Name: "a.yaml", Data: []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: A}\n")},
		{Name: "b.yaml", Data: []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: B}\n")},
	})
	if err == nil || !strings.Contains(err.Error(), "a.yaml:3: Secret default/A: metadata.name:") || !strings.Contains(err.Error(), "b.yaml:3") {
		t.Fatalf("%v", err)
	}
}

func TestParseNoticesFieldsNotImplemented(t *testing.T) {
	y := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  labels: {a: b}
spec:
  parentRefs: [{name: g}]
  rules:
    - filters: [{type: RequestHeaderModifier}]
      timeouts: {request: 1s}
      backendRefs: [{name: s, port: 80}]
status: {parents: []}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: p}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  retry: {numRetries: 3}
  rateLimit:
    local:
      rules:
        - limit: {requests: 1, unit: Second}
          cost: {request: {from: Number, number: 2}}
          shadowMode: true
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g}
spec:
  gatewayClassName: eg
  listeners:
    - {name: tcp, protocol: TCP, port: 9000}
    - {name: h, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {}}}}
  infrastructure: {}
`
	set, notices, err := Parse([]File{{Name: "n.yaml", Data: []byte(y)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range notices {
		got = append(got, n.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"n.yaml:9: HTTPRoute default/r: spec.rules[0].filters: filters are not implemented",
		"n.yaml:10: HTTPRoute default/r: spec.rules[0].timeouts: not implemented by this gateway; ignored",
		"BackendTrafficPolicy default/p: spec.retry: not implemented",
		"BackendTrafficPolicy default/p: spec.rateLimit.local.rules[0].cost: not implemented",
		"spec.rateLimit.local.rules[0].shadowMode: shadowMode only applies to Global",
		"n.yaml:27: document 3: kind GatewayClass (gateway.networking.k8s.io/v1) is not implemented",
		"Gateway default/g: spec.listeners[0].protocol: protocol TCP is not implemented by this gateway; listener \"tcp\" is not served",
		"Gateway default/g: spec.listeners[1].allowedRoutes.namespaces.from: namespace selectors are not implemented",
		"Gateway default/g: spec.infrastructure: not implemented",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "labels") || strings.Contains(all, "status") {
		t.Errorf("metadata and status must be skipped quietly:\n%s", all)
	}
	if len(set.Gateways[0].Listeners) != 1 || set.Policies[0].Local[0].Shadow {
		t.Errorf("set: %+v %+v", set.Gateways[0].Listeners, set.Policies[0].Local[0])
	}
}

func TestParseDefaults(t *testing.T) {
	y := "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n  rules: [{}]\n---\n---\n# only a comment\n"
	set, _, err := Parse([]File{{Name: "d.yaml", Data: []byte(y)}})
	if err != nil {
		t.Fatal(err)
	}
	m := set.Routes[0].Rules[0].Matches[0]
	if set.Routes[0].Namespace != "default" || m.PathType != PathPrefix || m.PathValue != "/" {
		t.Fatalf("%+v %+v", set.Routes[0].Meta, m)
	}
}

func TestReadDirReadsOnlyManifests(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"b.yaml":    "apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n",
		"a.YML":     "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n",
		".#a.yaml":  "broken: [",
		"notes.txt": "broken: [",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	set, _, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Secrets) != 2 || set.Secrets[0].Name != "a" || set.Secrets[0].File != filepath.Join(dir, "a.YML") {
		t.Fatalf("%+v", set.Secrets)
	}
	if _, _, err := LoadDir(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory must be an error")
	}
}

// secretYAML is a kubernetes.io/tls Secret holding a fresh self-signed
// certificate.
func secretYAML(t testing.TB, name string) string {
	crt, key := selfSigned(t)
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + "}\ntype: kubernetes.io/tls\ndata:\n" +
		"  tls.crt: " + base64.StdEncoding.EncodeToString(crt) + "\n  tls.key: " + base64.StdEncoding.EncodeToString(key) + "\n"
}

func selfSigned(t testing.TB) (crt, key []byte) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"test.example"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// A kind this gateway does not know in a group it owns is a mistake (a
// misspelt policy would leave its route unlimited): the directory is
// refused. Known kinds it does not implement, and kinds of other groups,
// are only noticed.
func TestParseUnknownKindOfAnOwnGroupIsAnError(t *testing.T) {
	for _, tt := range []struct{ apiVersion, kind, want string }{
		{"gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicyy", `n.yaml:1: document 1: kind BackendTrafficPolicyy is not a kind of gateway.envoyproxy.io; did you mean BackendTrafficPolicy?`},
		{"gateway.networking.k8s.io/v1", "HTTPRoutes", `kind HTTPRoutes is not a kind of gateway.networking.k8s.io; did you mean HTTPRoute?`},
		{"gateway.networking.k8s.io/v1", "Frobnicator", `kind Frobnicator is not a kind of gateway.networking.k8s.io; valid:`},
	} {
		y := "apiVersion: " + tt.apiVersion + "\nkind: " + tt.kind + "\nmetadata: {name: p}\nspec: {}\n"
		_, _, err := Parse([]File{{Name: "n.yaml", Data: []byte(y)}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err %v, want %q", tt.apiVersion, tt.kind, err, tt.want)
		}
	}
	for _, y := range []string{
		"apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: p}\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: p}\n",
		"apiVersion: example.com/v1\nkind: Whatever\nmetadata: {name: p}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\n",
	} {
		_, notices, err := Parse([]File{{Name: "n.yaml", Data: []byte(y)}})
		if err != nil || len(notices) != 1 || !strings.Contains(notices[0].String(), "not implemented") {
			t.Errorf("%q: err %v, notices %v; want one not-implemented notice", y, err, notices)
		}
	}
}

// What Envoy Gateway's CRD admits but its translator cannot translate (buildRateLimitRule) is no error of the
// file: the policy is read, marked invalid with the translator's message (its Accepted condition), and noticed.
func TestUntranslatablePolicies(t *testing.T) {
	const target = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
	rule := func(header string) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: p, namespace: ns}\nspec:\n" + target +
			"  rateLimit:\n    global:\n      rules: [{clientSelectors: [{headers: [" + header + "]}], limit: {requests: 1, unit: Second}}]\n"
	}
	missing := "RateLimit: unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value"
	tests := []struct{ name, header, invalid, field string }{
		{"distinct invert", "{name: x, type: Distinct, invert: true}", "RateLimit: unable to translate rateLimit.Invert is not applicable for distinct header match type.", ".invert"},
		{"distinct value", "{name: x, type: Distinct, value: a}", missing, ".value"},
		{"exact no value", "{name: x}", missing, ".value"},
		{"regex no value", "{name: x, type: RegularExpression}", missing, ".value"},
		{"regex", "{name: x, type: RegularExpression, value: \"*.illegal\"}", "RateLimit: regex \"*.illegal\" is invalid: error parsing regexp: missing argument to repetition operator: `*`", ".value"},
		{"valid", "{name: x, value: a, invert: true}, {name: y, type: Distinct}", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, notices, err := Parse([]File{{Name: "f.yaml", Data: []byte(rule(tt.header))}})
			if err != nil || len(set.Policies) != 1 {
				t.Fatalf("want the policy read without error, got %v, %v", set, err)
			}
			if got := set.Policies[0].Invalid; got != tt.invalid {
				t.Fatalf("Invalid = %q, want %q", got, tt.invalid)
			}
			noticed := slices.ContainsFunc(notices, func(n Notice) bool {
				return strings.HasSuffix(n.Field, "headers[0]"+tt.field) && strings.Contains(n.Msg, "answer 500")
			})
			if noticed != (tt.invalid != "") {
				t.Errorf("noticed %v, want %v: %v", noticed, tt.invalid != "", notices)
			}
		})
	}
}
