package gateway

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestProxyAnswers(t *testing.T) {
	up := startUpstream(t)
	// A port nobody listens on: the backend that cannot be reached.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()),
		"policy.yaml": policyYAML("Global", plainRule(1000, "Hour")),
		"more.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: other}
spec:
  parentRefs: [{name: eg}]
  hostnames: [other.example]
  rules:
    - matches: [{path: {value: /dead}}]
      backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: dead}]
    - matches: [{path: {value: /nothing}}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: dead}
spec:
  endpoints: [{ip: {address: 127.0.0.1, port: ` + dead[strings.LastIndex(dead, ":")+1:] + `}}]
`})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)

	t.Run("upstream", func(t *testing.T) {
		a := send(t, "GET", base+"/api/random?x=1", "X-Forwarded-For", "10.1.1.1")
		id := a.header.Get("X-Seen-Request-Id")
		if a.status != 200 || a.header.Get("X-Seen-Host") != testHost || len(id) != 36 || id[14] != '4' ||
			a.header.Get("X-Seen-Forwarded-For") != "10.1.1.1, 127.0.0.1" || a.header.Get("X-Seen-Forwarded-Proto") != "http" {
			t.Fatalf("%d %v", a.status, a.header)
		}
		// The gateway's rate-limit headers replace the upstream's own.
		if got := a.header.Values("X-Ratelimit-Limit"); len(got) != 1 || got[0] != "1000, 1000;w=3600" {
			t.Fatalf("x-ratelimit-limit: %q", got)
		}
	})
	t.Run("request id kept", func(t *testing.T) {
		a := send(t, "GET", base+"/", "X-Request-Id", "given-id")
		if a.header.Get("X-Seen-Request-Id") != "given-id" {
			t.Fatalf("%v", a.header)
		}
		last := gw.accessLines(t)
		if l := last[len(last)-1]; l["x-request-id"] != "given-id" || l["x-forwarded-for"] != "127.0.0.1" {
			t.Fatalf("%v", l)
		}
	})
	t.Run("body counted", func(t *testing.T) {
		req, _ := http.NewRequest("POST", base+"/post", strings.NewReader("twelve bytes"))
		req.Host = testHost
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		lines := gw.accessLines(t)
		l := lines[len(lines)-1]
		if l["bytes_received"] != "12" || l["bytes_sent"] != strconv.Itoa(len("fortune for POST /post (12 bytes)")) || l["method"] != "POST" || l["x-envoy-upstream-service-time"] == "-" {
			t.Fatalf("%v", l)
		}
	})
	t.Run("no route", func(t *testing.T) {
		for _, host := range []string{"unknown.example", ""} {
			req, _ := http.NewRequest("GET", base+"/", nil)
			req.Host = host
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 404 {
				t.Fatalf("host %q: %d", host, resp.StatusCode)
			}
		}
		lines := gw.accessLines(t)
		if l := lines[len(lines)-1]; l["response_flags"] != "NR" || l["response_code_details"] != "route_not_found" || l["route_name"] != "-" {
			t.Fatalf("%v", l)
		}
	})
	t.Run("unreachable backend", func(t *testing.T) {
		req, _ := http.NewRequest("GET", base+"/dead", nil)
		req.Host = "other.example"
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		lines := gw.accessLines(t)
		l := lines[len(lines)-1]
		if resp.StatusCode != 503 || l["response_flags"] != "UF" || !strings.Contains(l["response_code_details"], "connection_failure") {
			t.Fatalf("%d %v", resp.StatusCode, l)
		}
	})
	t.Run("no backend", func(t *testing.T) {
		req, _ := http.NewRequest("GET", base+"/nothing", nil)
		req.Host = "other.example"
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 500 {
			t.Fatalf("%d", resp.StatusCode)
		}
	})
	if !strings.Contains(gw.logs.String(), "the rule has no backendRefs") {
		t.Errorf("the notice of a rule without backends is not logged:\n%s", gw.logs)
	}
}
