package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fortune-tck/fortune-tck/internal/ratelimittest"
	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// gatewayManifests is a Gateway on two free ports, a route to the quote
// source at quotes and the spec's example policy.
func gatewayManifests(t *testing.T, quotes string) (dir, httpPort string) {
	t.Helper()
	dir = t.TempDir()
	httpPort, httpsPort := freePort(t), freePort(t)
	host, port, _ := strings.Cut(quotes, ":")
	files := map[string]string{
		"gateway.yaml": fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tck}
spec:
  gatewayClassName: fortune-tck
  listeners:
    - {name: http, protocol: HTTP, port: %s}
    - {name: https, protocol: HTTPS, port: %s}
`, httpPort, httpsPort),
		"route.yaml": fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: quotes}
spec:
  parentRefs: [{name: tck}]
  hostnames: [fortune.example.local]
  rules: [{backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: quotes}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: quotes}
spec:
  endpoints: [{ip: {address: %s, port: %s}}]
`, host, port),
		"policy.yaml": `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: limit}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: quotes}]
  rateLimit:
    type: Global
    global:
      rules:
        - clientSelectors: [{headers: [{name: x-user-id, type: Distinct}]}]
          limit: {requests: 3, unit: Minute}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, httpPort
}

// gatewayGet sends a GET for fortune.example.local with x-user-id user.
func gatewayGet(t *testing.T, url, user string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = "fortune.example.local"
	req.Header.Set("x-user-id", user)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header
}

// fourthIsRefused sends four requests for a fresh user: 200, 200, 200, 429.
func fourthIsRefused(t *testing.T, url string) {
	t.Helper()
	user := fmt.Sprintf("user-%d", time.Now().UnixNano())
	// The four requests must fall into one minute.
	if left := 60 - time.Now().Unix()%60; left < 3 {
		time.Sleep(time.Duration(left)*time.Second + 50*time.Millisecond)
	}
	for i, want := range []int{200, 200, 200, 429} {
		code, h := gatewayGet(t, url, user)
		if code != want || h.Get("X-Ratelimit-Limit") != "3, 3;w=60" {
			t.Fatalf("request %d: %d %v", i+1, code, h)
		}
	}
}

// TestServeGatewayAsTheHarnessStartsIt runs the harness's command line:
// two instances on one directory and one Redis, the second shifted by
// --port-offset, each with its access-log file.
func TestServeGatewayAsTheHarnessStartsIt(t *testing.T) {
	srv := redistest.Start(t)
	quotes := start(t, nil, "serve", "quotes", "--port", "0")
	dir, httpPort := gatewayManifests(t, strings.TrimPrefix(quotes.addr(t), "http://"))
	logFile := filepath.Join(t.TempDir(), "access.log")
	gw := start(t, nil, "serve", "gateway", "--config", dir, "--redis", srv.URL(), "--port-offset", "0", "--access-log", logFile)
	// Both listeners are announced, in port order.
	base := "http://127.0.0.1:" + httpPort
	if a, b := gw.addr(t), gw.addr(t); a != base && b != base {
		t.Fatalf("listeners %s and %s, want port %s", a, b, httpPort)
	}
	fourthIsRefused(t, base+"/api/random")
	if code := gw.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, gw.stderr)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var last map[string]string
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || len(lines) != 4 {
		t.Fatalf("%d lines, %v:\n%s", len(lines), err, data)
	}
	if last["response_code"] != "429" || last["response_flags"] != "RL" || last["response_code_details"] != "request_rate_limited" || last["upstream_host"] != "-" {
		t.Fatalf("%v", last)
	}
	if strings.Contains(gw.stdout.String(), "response_code") {
		t.Fatalf("the access log went to stdout too:\n%s", gw.stdout)
	}
}

// TestServeGatewayAsksTheRateLimitService: with --rate-limit-service the
// gateway asks envoyproxy/ratelimit, whose configuration it writes into
// --rate-limit-service-config.
func TestServeGatewayAsksTheRateLimitService(t *testing.T) {
	srv := redistest.Start(t)
	service := ratelimittest.Start(t, srv.Addr())
	quotes := start(t, nil, "serve", "quotes", "--port", "0")
	dir, httpPort := gatewayManifests(t, strings.TrimPrefix(quotes.addr(t), "http://"))
	gw := start(t, nil, "serve", "gateway", "--config", dir, "--rate-limit-service", service.URL(), "--rate-limit-service-config", service.ConfigDir)
	gw.addr(t)
	service.WaitConfig(t, "default/tck/http.httproute/default/quotes/rule/0/match/0/fortune_example_local_httproute/default/quotes/rule/0/match/0/fortune_example_local.rule-0-match-0: unit=MINUTE requests_per_unit=3")
	fourthIsRefused(t, "http://127.0.0.1:"+httpPort+"/api/random")
	// The service counted them: its keys start with the domain, the listener.
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	if keys, err := rdb.Keys(context.Background(), "default/tck/http_*").Result(); err != nil || len(keys) != 1 {
		t.Fatalf("the service's counters: %v %v", keys, err)
	}
	if code := gw.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, gw.stderr)
	}
}

func TestServeGatewayRefusesABadDirectory(t *testing.T) {
	dir, _ := gatewayManifests(t, "127.0.0.1:1")
	bad := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: bad}\nspec:\n  rules: [{matches: [{method: get}]}]\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("serve", "gateway", "--config", dir)
	want := filepath.Join(dir, "bad.yaml") + `:5: HTTPRoute default/bad: spec.rules[0].matches[0].method: unsupported value "get"`
	if code != exitError || !strings.Contains(stderr, "refused") || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d:\n%s\nwant %s", code, stderr, want)
	}
	if code, _, stderr := runCLI("serve", "gateway", "--config", filepath.Join(dir, "missing")); code != exitError || !strings.Contains(stderr, "missing") {
		t.Fatalf("missing directory: exit %d: %s", code, stderr)
	}
}

func TestServeGatewayBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--config is required"},
		{[]string{"--config", ".", "--port-offset", "70000"}, "invalid --port-offset 70000"},
		{[]string{"--config", ".", "--redis", "http://x"}, "--redis: invalid Redis URL"},
		{[]string{"--config", ".", "--port", "80"}, "flag provided but not defined: -port"},
		{[]string{"--config", ".", "--rate-limit-fail-closed=maybe"}, "invalid boolean value"},
		{[]string{"--config", ".", "--access-log-flush", "-1s"}, "invalid --access-log-flush -1s"},
		{[]string{"--config", ".", "--rate-limit-service", "127.0.0.1:8081"}, "--rate-limit-service: invalid rate limit service address"},
		{[]string{"--config", ".", "--rate-limit-service", "grpc://127.0.0.1:8081", "--redis", "redis://127.0.0.1:6379/0"}, "exclude each other"},
		{[]string{"--config", ".", "--rate-limit-service-config", "."}, "--rate-limit-service-config needs --rate-limit-service"},
		{[]string{"--config", ".", "--rate-limit-service", "grpc://127.0.0.1:8081", "--rate-limit-service-timeout", "0s"}, "invalid --rate-limit-service-timeout 0s"},
	} {
		code, _, stderr := runCLI(append([]string{"serve", "gateway"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestServeGatewayHelp(t *testing.T) {
	code, stdout, _ := runCLI("serve", "gateway", "--help")
	for _, want := range []string{"-config", "-redis", "-rate-limit-fail-closed", "-rate-limit-service", "-rate-limit-service-config", "-rate-limit-service-timeout", "-port-offset", "reference only", "-host", "-access-log", "-access-log-flush",
		"-log-format", "-log-level", "BackendTrafficPolicy", "Distinct", "not implemented", "Backend (gateway.envoyproxy.io/v1alpha1)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if code != exitOK || strings.Contains(stdout, "-port int") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}

// TestUpRunsTheDemoGateway: up writes the demo configuration, routes
// fortune.example.local to its quote source with the spec's policy, and
// prints how to try it.
func TestUpRunsTheDemoGateway(t *testing.T) {
	data := t.TempDir()
	addrs := map[string][]string{}
	var mu sync.Mutex
	out := &syncBuffer{}
	c := &cli{stdout: out, stderr: &syncBuffer{}, getenv: func(string) string { return "" },
		listening: func(name, addr string) { mu.Lock(); addrs[name] = append(addrs[name], addr); mu.Unlock() },
		ports:     map[string]int{"configserver": 0, "quotes": 0, "configapp": 0, "authserver": 0, "fortune": 0, "greeting": 0, "gateway": 0}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- c.run(ctx, []string{"up", "--data", data}) }()
	defer func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("exit %d", code)
		}
	}()
	var gw []string
	deadline := time.Now().Add(30 * time.Second)
	for len(gw) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		gw = addrs["gateway"]
		mu.Unlock()
	}
	if len(gw) != 2 {
		t.Fatalf("gateway listeners: %v\n%s", gw, c.stderr)
	}
	fourthIsRefused(t, "http://"+gw[0]+"/api/random")
	fourthIsRefused(t, "https://"+gw[1]+"/api/random")
	for _, want := range []string{"gateway", "curl -i -H 'Host: fortune.example.local' -H 'x-user-id: alice' http://localhost:", "created now", filepath.Join(data, "gateway")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"gateway.yaml", "route.yaml", "policy.yaml", "backend.yaml"} {
		if _, err := os.Stat(filepath.Join(data, "gateway", f)); err != nil {
			t.Errorf("demo file: %v", err)
		}
	}
}
