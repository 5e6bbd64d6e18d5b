package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
)

// proxyAndTokens measures the gateway and the fortune service against the
// fixed-body upstream.
func proxyAndTokens(s *stack, m *meter, gw, tokens bool) {
	up, upErr := s.fixedBody("upstream (fixed body)", "")
	direct := started{t: target{url: up + "/", want: http.StatusOK}, err: upErr}
	var cs []comparison
	if gw {
		ng := s.nginx(up, upErr)
		netHTTP := s.probe("probe on net/http", netHTTPProbeCommand, up, upErr)
		raw := s.probe("probe without net/http", rawProbeCommand, up, upErr)
		plain, mem, red := gateways(s, up, upErr)
		rls := s.gatewayWithService(up, upErr)
		cad := s.caddy(up, upErr)
		cs = append(cs,
			comparison{name: "nginx (1 worker), plain reverse proxy ÷ upstream direct", subj: ng, anchor: true},
			comparison{name: "Go probe on net/http's server, bare proxy ÷ upstream direct", subj: netHTTP, anchor: true},
			comparison{name: "Go probe without net/http, bare proxy ÷ upstream direct", subj: raw, anchor: true},
			comparison{name: "gateway, route without a policy ÷ upstream direct", target: ">= 0.50", min: 0.50, subj: plain},
			comparison{name: "gateway, Global policy in memory ÷ upstream direct", subj: mem},
			comparison{name: "gateway, Global policy in Redis ÷ upstream direct", target: ">= 0.45", min: 0.45, subj: red},
			comparison{name: "gateway, Global policy through the rate limit service ÷ upstream direct", subj: rls},
			comparison{name: "Caddy, plain reverse proxy ÷ upstream direct", subj: cad, anchor: true},
		)
	}
	if tokens {
		jwt, cached, uncached := fortunes(s)
		cs = append(cs,
			comparison{name: "fortune, jwt validation ÷ fixed body", target: ">= 0.70", min: 0.70, subj: jwt},
			comparison{name: "fortune, check_token with a cache ÷ fixed body", subj: cached},
			comparison{name: "fortune, check_token without a cache ÷ fixed body", target: ">= 0.25", min: 0.25, subj: uncached},
		)
	}
	for _, c := range cs {
		c.base = direct
		m.compare(c)
	}
}

// started is a target ready to drive, or why it is not.
type started struct {
	t   target
	err error
}

// gateways starts three gateways in front of up: without a policy, with a
// Global policy counted in memory, and in Redis (a limit never reached,
// one counter per x-user-id).
func gateways(s *stack, up string, upErr error) (plain, mem, red started) {
	if upErr != nil {
		err := fmt.Errorf("no upstream: %w", upErr)
		return started{err: err}, started{err: err}, started{err: err}
	}
	upAddr := strings.TrimPrefix(up, "http://")
	plain = s.gateway("gateway (no policy)", upAddr, false, "")
	mem = s.gateway("gateway (Global in memory)", upAddr, true, "")
	redisURL, redisProc, err := s.redis()
	if err != nil {
		red.err = err
	} else {
		red = s.gateway("gateway (Global in Redis)", upAddr, true, redisURL)
		red.t.procs = append(red.t.procs, redisProc)
	}
	return plain, mem, red
}

// nginx starts nginx with one worker as a plain reverse proxy to up,
// keeping connections to it alive: the anchor the issue reads the gateway's
// figure against (the same proxying, in C).
func (s *stack) nginx(up string, upErr error) started {
	if upErr != nil {
		return started{err: fmt.Errorf("no upstream: %w", upErr)}
	}
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			return started{err: errors.New("nginx is not installed (apt-get install nginx-light)")}
		}
	}
	port, err := freeport.Port()
	if err != nil {
		return started{err: err}
	}
	dir := filepath.Join(s.dir, "nginx")
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return started{err: err}
	}
	if err := os.WriteFile(conf, []byte(nginxConf(dir, port, strings.TrimPrefix(up, "http://"))), 0o644); err != nil {
		return started{err: err}
	}
	p, err := s.start("nginx (anchor)", bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	if err != nil {
		return started{err: err}
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	return started{t: target{url: url, want: http.StatusOK, procs: []*proc{p}}, err: p.waitHTTP(url)}
}

// nginxConf is nginx in the foreground, its files in dir (no root needed).
func nginxConf(dir string, port int, upstream string) string {
	return fmt.Sprintf(`worker_processes 1; daemon off; pid %[1]s/nginx.pid; error_log %[1]s/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  upstream u { server %[3]s; keepalive 64; }
  server {
    listen 127.0.0.1:%[2]d;
    location / { proxy_pass http://u; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`, dir, port, upstream)
}

// redis starts a Redis server without persistence.
func (s *stack) redis() (string, *proc, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, fmt.Errorf("redis-server could not start: %w (make deps installs it)", err)
	}
	port, err := freeport.Port()
	if err != nil {
		return "", nil, err
	}
	p, err := s.start("redis-server", bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err != nil {
		return "", nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	return "redis://" + addr + "/0", p, p.waitTCP(addr)
}

// gateway starts the reference gateway in front of upstream; extra adds
// flags (the rate limit service's).
func (s *stack) gateway(name, upstream string, policy bool, redisURL string, extra ...string) started {
	port, err := freeport.Port()
	if err != nil {
		return started{err: err}
	}
	dir := filepath.Join(s.dir, strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return started{err: err}
	}
	if err := os.WriteFile(filepath.Join(dir, "gw.yaml"), []byte(manifests(port, upstream, policy)), 0o644); err != nil {
		return started{err: err}
	}
	args := []string{"gateway", "--config", dir, "--access-log", os.DevNull}
	if redisURL != "" {
		args = append(args, "--redis", redisURL)
	}
	args = append(args, extra...)
	_, p, err := s.service(name, args...)
	t := target{url: "http://127.0.0.1:" + strconv.Itoa(port) + "/", headers: map[string]string{"x-user-id": "bench"}, want: http.StatusOK}
	if p != nil {
		t.procs = []*proc{p}
	}
	return started{t: t, err: err}
}

// gatewayAndBackend are the Gateway "eg" listening on port and the Backend
// "up" at upstream (host:port) that the load and scale figures route to.
func gatewayAndBackend(port int, upstream string) string {
	host, p, _ := strings.Cut(upstream, ":")
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: %d}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: up}
spec: {endpoints: [{ip: {address: %s, port: %s}}]}
`, port, host, p)
}

// manifests route every request to upstream; with policy, a Global rate
// limit that is never reached counts each x-user-id.
func manifests(port int, upstream string, policy bool) string {
	y := gatewayAndBackend(port, upstream) + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  parentRefs: [{name: eg}]
  rules: [{backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: up}]}]
`
	if policy {
		y += `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: p}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  rateLimit:
    type: Global
    global:
      rules:
        - clientSelectors: [{headers: [{name: x-user-id, type: Distinct}]}]
          limit: {requests: 1000000000, unit: Second}
`
	}
	return y
}

// fortunes starts an authorization server with the demo identities and
// three fortune services: jwt, check_token with a cache, without.
func fortunes(s *stack) (jwt, cached, uncached started) {
	port, err := freeport.Port()
	if err != nil {
		return started{err: err}, started{err: err}, started{err: err}
	}
	self := "http://127.0.0.1:" + strconv.Itoa(port)
	auth, authProc, err := s.service("authserver", "authserver", "--port", strconv.Itoa(port), "--url", self, "--seed-demo")
	var token string
	if err == nil {
		token, err = readerToken(auth)
	}
	if err != nil {
		err = fmt.Errorf("authorization server: %w", err)
		return started{err: err}, started{err: err}, started{err: err}
	}
	start := func(name string, args ...string) started {
		url, p, err := s.service(name, append([]string{"fortune", "--port", "0", "--auth-url", auth}, args...)...)
		t := target{url: url + "/", headers: map[string]string{"Authorization": "Bearer " + token}, want: http.StatusOK}
		if p != nil {
			t.procs = []*proc{p, authProc}
		}
		return started{t: t, err: err}
	}
	return start("fortune (jwt)", "--token-validation", "jwt"),
		start("fortune (check_token, cache)", "--cache-size", "10000"),
		start("fortune (check_token)")
}

// readerToken registers a client with fortunes.read, as the admin, and
// returns a token of it.
func readerToken(auth string) (string, error) {
	admin, err := clientToken(auth, "admin", "adminsecret")
	if err != nil {
		return "", err
	}
	body := `{"client_id":"reader","client_secret":"reader-secret","authorized_grant_types":["client_credentials"],"authorities":["fortunes.read"],"scope":["fortunes.read"]}`
	req, _ := http.NewRequest(http.MethodPost, auth+"/oauth/clients", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("registering the reader client: %s", resp.Status)
	}
	return clientToken(auth, "reader", "reader-secret")
}

func clientToken(auth, id, secret string) (string, error) {
	req, _ := http.NewRequest(http.MethodPost, auth+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.SetBasicAuth(id, secret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("token of %s: %s %v", id, resp.Status, err)
	}
	return tok.AccessToken, nil
}

// get returns a body, or an error for any status but 200.
func get(url string) ([]byte, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = errors.New(resp.Status + ": " + string(b))
	}
	return b, err
}
