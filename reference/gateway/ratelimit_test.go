package gateway

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestThreePerMinute is the spec's example (8.3, 8.4, 7, 6.3): requests 1
// to 3 pass with remaining 2, 1, 0; the 4th gets 429 with every header and
// never reaches the upstream.
func TestThreePerMinute(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", distinctRule(3, "Minute"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)
	freshWindow(time.Minute, 5*time.Second)
	for i, remaining := range []string{"2", "1", "0"} {
		a := send(t, "GET", base+"/api/random", "x-user-id", "alice")
		if a.status != 200 || a.rateHeaders()[0] != "3, 3;w=60" || a.rateHeaders()[1] != remaining {
			t.Fatalf("request %d: %d %v %q", i+1, a.status, a.rateHeaders(), a.body)
		}
		if reset, err := strconv.Atoi(a.rateHeaders()[2]); err != nil || reset < 1 || reset > 60 {
			t.Fatalf("request %d: reset %q", i+1, a.rateHeaders()[2])
		}
	}
	a := send(t, "GET", base+"/api/random", "x-user-id", "alice")
	if a.status != http.StatusTooManyRequests || a.header.Get("X-Proxy-Ratelimited") != "true" || a.rateHeaders()[0] != "3, 3;w=60" ||
		a.rateHeaders()[1] != "0" || a.rateHeaders()[2] == "" || a.header.Get("Date") == "" || a.body != "" {
		t.Fatalf("request 4: %d %v %q", a.status, a.header, a.body)
	}
	if n := up.hits.Load(); n != 3 {
		t.Fatalf("upstream called %d times, want 3", n)
	}
	lines := gw.accessLines(t)
	last := lines[len(lines)-1]
	for k, v := range map[string]string{
		"response_code": "429", "response_flags": "RL", "response_code_details": "request_rate_limited", "upstream_host": "-",
		"method": "GET", "protocol": "HTTP/1.1", ":authority": testHost, "x-envoy-origin-path": "/api/random",
		"route_name": "httproute/default/fortune/rule/0/match/0/fortune_example_local", "upstream_cluster": "httproute/default/fortune/rule/0",
	} {
		if last[k] != v {
			t.Errorf("access log %s = %q, want %q", k, last[k], v)
		}
	}
	for _, k := range []string{"start_time", "bytes_received", "bytes_sent", "duration", "user-agent", "x-request-id", "downstream_remote_address", "requested_server_name"} {
		if last[k] == "" {
			t.Errorf("access log lacks %s: %v", k, last)
		}
	}
	if first := lines[0]; first["response_code"] != "200" || first["response_flags"] != "-" || first["upstream_host"] != up.addr() {
		t.Errorf("first line: %v", first)
	}
}

// TestDistinctValuesAndMissingHeader: each x-user-id has its own counter; a
// request without the header is neither counted nor limited, and gets no
// rate-limit headers (the anchor's answer to spec 8.5).
func TestDistinctValuesAndMissingHeader(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", distinctRule(1, "Hour"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)
	freshWindow(time.Hour, 5*time.Second)
	if a := send(t, "GET", base+"/", "x-user-id", "alice"); a.status != 200 || a.rateHeaders()[1] != "0" {
		t.Fatalf("alice: %d %v", a.status, a.rateHeaders())
	}
	if a := send(t, "GET", base+"/", "x-user-id", "alice"); a.status != 429 {
		t.Fatalf("alice again: %d", a.status)
	}
	if a := send(t, "GET", base+"/", "x-user-id", "bob"); a.status != 200 || a.rateHeaders()[1] != "0" {
		t.Fatalf("bob: %d %v", a.status, a.rateHeaders())
	}
	for range 3 {
		a := send(t, "GET", base+"/")
		// Only the upstream's own header comes back: none from the gateway.
		if a.status != 200 || a.rateHeaders() != [3]string{"from upstream", "", ""} {
			t.Fatalf("no header: %d %v", a.status, a.header)
		}
	}
	if n := up.hits.Load(); n != 5 {
		t.Fatalf("upstream hits %d, want 5", n)
	}
}

// TestSecondWindowElapses: after a refusal, the next window admits again
// and the reset header counts down to it.
func TestSecondWindowElapses(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(2, "Second"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)
	// Three requests must fall in one second; on a slow machine, try again
	// in the next one (bounded).
	for attempt := 1; ; attempt++ {
		freshWindow(time.Second, time.Second) // start right after a second begins
		start := time.Now().Unix()
		a1, a2, a3 := send(t, "GET", base+"/"), send(t, "GET", base+"/"), send(t, "GET", base+"/")
		if time.Now().Unix() != start {
			if attempt == 5 {
				t.Fatal("three requests never fitted in one second")
			}
			continue
		}
		if a1.status != 200 || a2.status != 200 || a3.status != 429 || a3.rateHeaders() != [3]string{"2, 2;w=1", "0", "1"} {
			t.Fatalf("%d %d %d %v", a1.status, a2.status, a3.status, a3.rateHeaders())
		}
		break
	}
	freshWindow(time.Second, time.Second)
	if a := send(t, "GET", base+"/"); a.status != 200 || a.rateHeaders() != [3]string{"2, 2;w=1", "1", "1"} {
		t.Fatalf("next second: %d %v", a.status, a.rateHeaders())
	}
}

// TestLocalLimit: a Local rule refuses with Envoy's local_rate_limited.
func TestLocalLimit(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Local", plainRule(1, "Hour"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)
	freshWindow(time.Hour, 5*time.Second)
	send(t, "GET", base+"/")
	a := send(t, "GET", base+"/")
	if a.status != 429 || a.body != "local_rate_limited" || a.rateHeaders()[0] != "1, 1;w=3600" || a.header.Get("X-Proxy-Ratelimited") != "true" {
		t.Fatalf("%d %q %v", a.status, a.body, a.header)
	}
	if last := gw.accessLines(t)[1]; last["response_code_details"] != "local_rate_limited" || last["response_flags"] != "RL" {
		t.Fatalf("%v", last)
	}
}

// TestHTTPSHeadAndGet is spec 4.6: the route is tested with HEAD and GET
// over HTTPS; the listener names no certificate, so it is self-signed.
func TestHTTPSHeadAndGet(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", distinctRule(3, "Minute"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10443)
	freshWindow(time.Minute, 5*time.Second)
	head := send(t, "HEAD", base+"/", "x-user-id", "carol")
	if head.status != 200 || head.body != "" || head.rateHeaders()[1] != "2" || head.proto != "HTTP/2.0" {
		t.Fatalf("HEAD: %d %q %v %s", head.status, head.body, head.rateHeaders(), head.proto)
	}
	cert := head.tls.PeerCertificates[0]
	if cert.Issuer.String() != cert.Subject.String() || cert.VerifyHostname("localhost") != nil {
		t.Fatalf("certificate: issuer %s subject %s names %v", cert.Issuer, cert.Subject, cert.DNSNames)
	}
	get := send(t, "GET", base+"/", "x-user-id", "carol")
	if get.status != 200 || get.rateHeaders()[1] != "1" || get.header.Get("X-Seen-Forwarded-Proto") != "https" {
		t.Fatalf("GET: %d %v", get.status, get.header)
	}
	send(t, "GET", base+"/", "x-user-id", "carol")
	if a := send(t, "HEAD", base+"/", "x-user-id", "carol"); a.status != 429 || a.rateHeaders()[1] != "0" {
		t.Fatalf("4th: %d %v", a.status, a.rateHeaders())
	}
	if last := gw.accessLines(t)[3]; last["protocol"] != "HTTP/2" || last["requested_server_name"] != testHost || last["method"] != "HEAD" {
		t.Fatalf("access log: %v", last)
	}
	// The HTTP listener shares the counters: same route.
	if a := send(t, "GET", gw.url(t, 10080)+"/", "x-user-id", "carol"); a.status != 429 {
		t.Fatalf("HTTP after HTTPS: %d", a.status)
	}
}
