package accesslog

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRateLimitedEntry(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf)
	e := &Entry{
		Start: time.Date(2024, 1, 26, 11, 52, 16, 528_000_000, time.FixedZone("x", 3600)), Method: "GET", Path: "/api?x=1",
		Protocol: "HTTP/1.1", Code: 429, Flags: "RL", Details: "request_rate_limited", Duration: 1500 * time.Microsecond,
		UpstreamTime: -1, XForwardedFor: "127.0.0.1", UserAgent: "curl/8.4.0 \"quoted\"\x01\xff", RequestID: "id",
		Authority: "www.example.com", UpstreamCluster: "httproute/default/r/rule/0", DownstreamRemote: "127.0.0.1:5000",
		DownstreamLocal: "127.0.0.1:10080", RouteName: "httproute/default/r/rule/0/match/0/www_example_com",
	}
	if err := w.Write(e); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("not one line: %q", line)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON of strings: %v\n%s", err, line)
	}
	want := map[string]string{
		"start_time": "2024-01-26T10:52:16.528Z", "method": "GET", "x-envoy-origin-path": "/api?x=1", "protocol": "HTTP/1.1",
		"response_code": "429", "response_flags": "RL", "response_code_details": "request_rate_limited",
		"connection_termination_details": "-", "upstream_transport_failure_reason": "-", "bytes_received": "0", "bytes_sent": "0",
		"duration": "1", "x-envoy-upstream-service-time": "-", "x-forwarded-for": "127.0.0.1", "user-agent": "curl/8.4.0 \"quoted\"\x01\ufffd",
		"x-request-id": "id", ":authority": "www.example.com", "upstream_host": "-", "upstream_cluster": "httproute/default/r/rule/0",
		"upstream_local_address": "-", "downstream_local_address": "127.0.0.1:10080", "downstream_remote_address": "127.0.0.1:5000",
		"requested_server_name": "-", "route_name": "httproute/default/r/rule/0/match/0/www_example_com",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("%d keys, want %d: %s", len(m), len(want), line)
	}
	if !strings.HasPrefix(line, `{"start_time":`) || !strings.HasSuffix(line, `"route_name":"httproute/default/r/rule/0/match/0/www_example_com"}`+"\n") {
		t.Errorf("keys not in Envoy Gateway's order: %s", line)
	}
}

func TestConcurrentLinesDoNotInterleave(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			for range 50 {
				_ = w.Write(&Entry{Method: "GET", Path: strings.Repeat("x", i*10)})
			}
		})
	}
	wg.Wait()
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("invalid line: %q", line)
		}
	}
}
