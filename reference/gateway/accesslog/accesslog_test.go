package accesslog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRateLimitedEntry(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, 0, nil)
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
	for _, every := range []time.Duration{0, time.Hour} {
		rec := &calls{}
		w := New(rec, every, nil)
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				for range 50 {
					_ = w.Write(&Entry{Method: "GET", Path: strings.Repeat("x", i*10)})
				}
			})
		}
		wg.Wait()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if n := rec.lines(t); n != 1000 {
			t.Fatalf("every %s: %d lines, want 1000", every, n)
		}
	}
}

// TestLinesWait: lines wait in memory until the interval passes, they fill
// FlushSize or the Writer is closed, and each write holds whole lines.
func TestLinesWait(t *testing.T) {
	rec := &calls{}
	w := New(rec, time.Hour, nil)
	e := &Entry{Method: "GET", Path: "/"}
	if err := w.Write(e); err != nil {
		t.Fatal(err)
	}
	if rec.count() != 0 {
		t.Fatal("a line was written before its time")
	}
	for rec.count() == 0 {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := rec.size(); got < FlushSize || got > FlushSize+1024 {
		t.Fatalf("first write of %d bytes, want FlushSize (%d) and at most one line more", got, FlushSize)
	}
	before := rec.lines(t)
	_ = w.Write(e)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	after := rec.lines(t)
	if after <= before {
		t.Fatal("Close did not write the lines that waited")
	}
	_ = w.Write(e)
	if rec.lines(t) != after+1 {
		t.Fatal("a line after Close was not written at once")
	}
}

// TestTheIntervalWritesLines: a line that waits is written once the
// interval has passed, without another line or Close.
func TestTheIntervalWritesLines(t *testing.T) {
	rec := &calls{}
	w := New(rec, 10*time.Millisecond, nil)
	defer w.Close()
	if err := w.Write(&Entry{Method: "GET"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); rec.count() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the line that waited was never written")
		}
	}
}

// TestWriteErrorsAreTold: Write and Close return the error of their own
// write; a write at the interval tells failed. The lines are dropped, not
// held.
func TestWriteErrorsAreTold(t *testing.T) {
	broken := errors.New("disk full")
	if err := New(failing{broken}, 0, nil).Write(&Entry{}); !errors.Is(err, broken) {
		t.Fatalf("Write: %v", err)
	}
	w := New(failing{broken}, time.Hour, nil)
	_ = w.Write(&Entry{})
	if err := w.Close(); !errors.Is(err, broken) {
		t.Fatalf("Close: %v", err)
	}
	told := make(chan error, 1)
	w = New(failing{broken}, time.Millisecond, func(err error) { told <- err })
	_ = w.Write(&Entry{})
	select {
	case err := <-told:
		if !errors.Is(err, broken) {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the error of a write at the interval was not told")
	}
	if len(w.buf) != 0 {
		t.Fatalf("%d bytes held after a failed write", len(w.buf))
	}
}

// BenchmarkWriteToFile is the cost of a line written to a file at once
// (the Baseline) and waiting for the others.
func BenchmarkWriteToFile(b *testing.B) {
	e := &Entry{Start: time.Now(), Method: "GET", Path: "/api/random", Protocol: "HTTP/1.1", Code: 200, UserAgent: "wrk",
		RequestID: "8d3f2c1e-4b5a-4c6d-9e8f-0a1b2c3d4e5f", Authority: "www.example.com", UpstreamHost: "127.0.0.1:8080",
		DownstreamRemote: "127.0.0.1:5000", DownstreamLocal: "127.0.0.1:10080", RouteName: "httproute/default/r/rule/0/match/0/www_example_com"}
	for _, bc := range []struct {
		name  string
		every time.Duration
	}{{"Baseline", 0}, {"Buffered", time.Second}} {
		b.Run(bc.name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			w := New(f, bc.every, nil)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_ = w.Write(e)
				}
			})
			_ = w.Close()
		})
	}
}

// calls records each write.
type calls struct {
	mu     sync.Mutex
	writes [][]byte
}

func (c *calls) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func (c *calls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writes)
}

func (c *calls) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writes[0])
}

// lines checks that every write holds whole JSON lines and counts them.
func (c *calls) lines(t *testing.T) int {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range c.writes {
		if !bytes.HasSuffix(p, []byte("\n")) {
			t.Fatalf("a write ends within a line: %q", p[max(0, len(p)-80):])
		}
		for line := range bytes.Lines(p) {
			if !json.Valid(line) {
				t.Fatalf("invalid line: %q", line)
			}
			n++
		}
	}
	return n
}

type failing struct{ err error }

func (f failing) Write([]byte) (int, error) { return 0, f.err }
