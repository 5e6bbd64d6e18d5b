package gateway

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
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
		l := last[len(last)-1]
		if l["x-request-id"] != "given-id" || l["x-forwarded-for"] != "127.0.0.1" || "http://"+l["downstream_local_address"] != base ||
			!strings.HasPrefix(l["downstream_remote_address"], "127.0.0.1:") {
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

// forwardingBackend answers each path with one of the things a proxy must
// pass on as it is, or not at all.
func forwardingBackend(t *testing.T, streamed chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/headers": // what arrived, and hop-by-hop headers of its own
			for _, k := range []string{"Connection", "X-Private", "Keep-Alive", "Proxy-Authorization", "Te", "Forwarded", "X-Forwarded-Host", "User-Agent", "X-Kept"} {
				w.Header().Set("Seen-"+k, strings.Join(r.Header.Values(k), "|"))
			}
			w.Header().Set("Connection", "X-Up-Private")
			w.Header().Set("X-Up-Private", "secret")
			w.Header().Set("Keep-Alive", "timeout=5")
		case "/trailers":
			w.Header().Set("Trailer", "X-Checksum")
			_, _ = io.WriteString(w, "body")
			w.Header().Set("X-Checksum", "42")
		case "/stream": // the rest only once the client has read the first part
			_, _ = io.WriteString(w, "first;")
			w.(http.Flusher).Flush()
			select {
			case <-streamed:
			case <-r.Context().Done():
				return
			}
			_, _ = io.WriteString(w, "second")
		case "/cut": // 100 bytes announced, 4 sent
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, "only")
			w.(http.Flusher).Flush()
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				c.Close()
			}
		case "/echo": // switches to a protocol that echoes what it reads
			if r.Header.Get("Upgrade") != "echo" || !strings.EqualFold(r.Header.Get("Connection"), "upgrade") {
				http.Error(w, "no upgrade asked", http.StatusBadRequest)
				return
			}
			c, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
			_ = brw.Flush()
			_, _ = io.Copy(c, brw)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The gateway passes on what is meant for the backend and the client, and
// nothing meant for one connection only (RFC 9110 7.6.1).
func TestForwarding(t *testing.T) {
	streamed := make(chan struct{})
	backend := forwardingBackend(t, streamed)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(strings.TrimPrefix(backend.URL, "http://"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)

	t.Run("hop-by-hop headers", func(t *testing.T) {
		req, _ := http.NewRequest("GET", base+"/headers", nil)
		req.Host = testHost
		for k, v := range map[string]string{
			"Connection": "X-Private", "X-Private": "secret", "Keep-Alive": "timeout=5", "Proxy-Authorization": "Basic eA==",
			"Te": "trailers, deflate", "Forwarded": "for=10.0.0.1", "X-Forwarded-Host": "public.example", "X-Kept": "yes",
		} {
			req.Header.Set(k, v)
		}
		req.Header["User-Agent"] = []string{""} // none sent
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := map[string]string{
			"Seen-Connection": "", "Seen-X-Private": "", "Seen-Keep-Alive": "", "Seen-Proxy-Authorization": "",
			"Seen-Te": "trailers", "Seen-Forwarded": "for=10.0.0.1", "Seen-X-Forwarded-Host": "public.example",
			"Seen-User-Agent": "", "Seen-X-Kept": "yes",
			"X-Up-Private": "", "Keep-Alive": "",
		}
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s: %q, want %q", k, got, v)
			}
		}
	})
	t.Run("trailers", func(t *testing.T) {
		resp, err := get(base + "/trailers")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "body" || resp.Trailer.Get("X-Checksum") != "42" {
			t.Fatalf("body %q, trailers %v", body, resp.Trailer)
		}
	})
	t.Run("a body of unknown length as it comes", func(t *testing.T) {
		resp, err := get(base + "/stream")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		first := make([]byte, len("first;"))
		if _, err := io.ReadFull(resp.Body, first); err != nil {
			t.Fatalf("the first part did not come before the rest: %v", err)
		}
		close(streamed)
		rest, _ := io.ReadAll(resp.Body)
		if string(first)+string(rest) != "first;second" {
			t.Fatalf("%q %q", first, rest)
		}
	})
	t.Run("an answer cut short", func(t *testing.T) {
		resp, err := get(base + "/cut")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err == nil {
			t.Fatal("the client got a whole answer")
		}
		eventually(t, 5*time.Second, "the access-log line", func() bool {
			l := gw.accessLines(t)
			return len(l) > 0 && l[len(l)-1]["x-envoy-origin-path"] == "/cut"
		})
		l := gw.accessLines(t)
		if e := l[len(l)-1]; e["response_flags"] != "UR" || e["response_code"] != "200" {
			t.Fatalf("%v", e)
		}
	})
	t.Run("upgrade", func(t *testing.T) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET /echo HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n", testHost)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Upgrade") != "echo" {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
		_, _ = io.WriteString(c, "ping")
		got := make([]byte, 4)
		if _, err := io.ReadFull(br, got); err != nil || string(got) != "ping" {
			t.Fatalf("echo %q: %v", got, err)
		}
		c.Close()
		eventually(t, 5*time.Second, "the access-log line", func() bool {
			l := gw.accessLines(t)
			return len(l) > 0 && l[len(l)-1]["x-envoy-origin-path"] == "/echo"
		})
		if e := gw.accessLines(t); e[len(e)-1]["response_code"] != "101" || e[len(e)-1]["bytes_sent"] != "4" {
			t.Fatalf("%v", e[len(e)-1])
		}
	})
}

// get is a GET with Host fortune.example.local, over HTTP/1.1.
func get(url string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Host = testHost
	return client.Do(req)
}

// TestAccessLogLinesWaitUntilShutdown: with AccessLogFlush, a line waits in
// memory, and Shutdown writes it after the requests in flight are done.
func TestAccessLogLinesWaitUntilShutdown(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr())})
	gw := startGateway(t, dir, Options{AccessLogFlush: time.Hour})
	if a := send(t, "GET", gw.url(t, 10080)+"/api/random"); a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if s := gw.access.String(); s != "" {
		t.Fatalf("the line was written at once: %s", s)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	if lines := gw.accessLines(t); len(lines) != 1 || lines[0]["response_code"] != "200" {
		t.Fatalf("after Shutdown: %v", lines)
	}
}
