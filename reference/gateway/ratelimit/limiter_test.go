package ratelimit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// policy parses a BackendTrafficPolicy whose spec.rateLimit is rateLimit.
func policy(t testing.TB, name, rateLimit string) *manifest.BackendTrafficPolicy {
	t.Helper()
	y := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + "}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  rateLimit:\n" + rateLimit
	set, _, err := manifest.Parse([]manifest.File{{Name: "p.yaml", Data: []byte(y)}})
	if err != nil {
		t.Fatal(err)
	}
	return set.Policies[0]
}

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// at1000 is a clock 1000 s after the epoch: 40 s into a minute.
func at1000() *clock { return &clock{now: time.Unix(1000, 0)} }

func request(method, path string, headers ...string) *http.Request {
	r := httptest.NewRequest(method, "http://gw.example"+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	return r
}

var loopback = netip.MustParseAddr("127.0.0.1")

type headers struct{ limit, remaining, reset string }

func headersOf(d Decision) headers {
	h := http.Header{}
	d.SetHeaders(h)
	return headers{h.Get("x-ratelimit-limit"), h.Get("x-ratelimit-remaining"), h.Get("x-ratelimit-reset")}
}

const distinctPerMinute = `    type: Global
    global:
      rules:
        - clientSelectors: [{headers: [{name: x-user-id, type: Distinct}]}]
          limit: {requests: 3, unit: Minute}
`

func TestThreePerMinute(t *testing.T) {
	c := at1000()
	l := New(Options{Now: c.Now})
	rt := NewRoute("route", RulesOf(policy(t, "p", distinctPerMinute)))
	for i, want := range []string{"2", "1", "0"} {
		d := l.Check(context.Background(), request("GET", "/", "x-user-id", "alice"), loopback, rt)
		if d.Outcome != Pass || headersOf(d) != (headers{"3, 3;w=60", want, "20"}) {
			t.Fatalf("request %d: %+v %+v", i+1, d, headersOf(d))
		}
	}
	d := l.Check(context.Background(), request("GET", "/", "x-user-id", "alice"), loopback, rt)
	if d.Outcome != Limited || d.Local || headersOf(d) != (headers{"3, 3;w=60", "0", "20"}) {
		t.Fatalf("request 4: %+v %+v", d, headersOf(d))
	}
	// Another value has its own counter; no header: no counter, no headers.
	if d := l.Check(context.Background(), request("GET", "/", "x-user-id", "bob"), loopback, rt); d.Outcome != Pass || headersOf(d).remaining != "2" {
		t.Fatalf("bob: %+v", headersOf(d))
	}
	if d := l.Check(context.Background(), request("GET", "/"), loopback, rt); d.Outcome != Pass || d.Applied() {
		t.Fatalf("no header: %+v", d)
	}
	// The window elapses at 1020: the counter starts again.
	c.add(20 * time.Second)
	if d := l.Check(context.Background(), request("GET", "/", "x-user-id", "alice"), loopback, rt); d.Outcome != Pass || headersOf(d) != (headers{"3, 3;w=60", "2", "60"}) {
		t.Fatalf("next window: %+v", headersOf(d))
	}
}

func TestUnitsAndResetAlignToTheEpoch(t *testing.T) {
	now := time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)
	for unit, window := range manifest.Units {
		p := policy(t, "p", "    global:\n      rules: [{limit: {requests: 1, unit: "+unit+"}}]\n")
		l := New(Options{Now: func() time.Time { return now }})
		d := l.Check(context.Background(), request("GET", "/"), loopback, NewRoute("r", RulesOf(p)))
		w := int64(window.Seconds())
		want := headers{"1, 1;w=" + itoa(w), "0", itoa(w - now.Unix()%w)}
		if got := headersOf(d); got != want {
			t.Errorf("%s: %+v, want %+v", unit, got, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestSelectors(t *testing.T) {
	rl := func(selector string) string {
		return "    global:\n      rules:\n        - clientSelectors: [" + selector + "]\n          limit: {requests: 5, unit: Hour}\n"
	}
	tests := []struct {
		name, selector string
		req            *http.Request
		client         string
		applies        bool
	}{
		{"exact", "{headers: [{name: X-Plan, value: free}]}", request("GET", "/", "x-plan", "free"), "", true},
		{"exact other", "{headers: [{name: x-plan, value: free}]}", request("GET", "/", "x-plan", "paid"), "", false},
		{"exact absent", "{headers: [{name: x-plan, value: free}]}", request("GET", "/"), "", false},
		{"exact inverted", "{headers: [{name: x-plan, value: free, invert: true}]}", request("GET", "/", "x-plan", "paid"), "", true},
		{"inverted absent", "{headers: [{name: x-plan, value: free, invert: true}]}", request("GET", "/"), "", true},
		{"regex", "{headers: [{name: x-plan, type: RegularExpression, value: \"fr.e\"}]}", request("GET", "/", "x-plan", "free"), "", true},
		{"regex whole value", "{headers: [{name: x-plan, type: RegularExpression, value: \"fr\"}]}", request("GET", "/", "x-plan", "free"), "", false},
		{"headers and", "{headers: [{name: a, value: \"1\"}, {name: b, type: Distinct}]}", request("GET", "/", "a", "1"), "", false},
		{"methods or", "{methods: [{value: POST}, {value: GET}]}", request("GET", "/"), "", true},
		{"method other", "{methods: [{value: POST}]}", request("GET", "/"), "", false},
		{"method inverted", "{methods: [{value: POST, invert: true}]}", request("GET", "/"), "", true},
		{"path prefix", "{path: {value: /api}}", request("GET", "/api/x"), "", true},
		{"path prefix element", "{path: {value: /api}}", request("GET", "/apix"), "", false},
		{"path exact", "{path: {type: Exact, value: /api}}", request("GET", "/api/x"), "", false},
		{"path inverted", "{path: {value: /api, invert: true}}", request("GET", "/other"), "", true},
		{"cidr", "{sourceCIDR: {value: 10.0.0.0/8}}", request("GET", "/"), "10.1.2.3", true},
		{"cidr other", "{sourceCIDR: {value: 10.0.0.0/8}}", request("GET", "/"), "192.168.0.1", false},
		{"cidr mapped", "{sourceCIDR: {value: 10.0.0.0/8}}", request("GET", "/"), "::ffff:10.0.0.1", true},
		{"selectors and", "{methods: [{value: GET}]}, {path: {value: /x}}", request("GET", "/"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := loopback
			if tt.client != "" {
				client = netip.MustParseAddr(tt.client)
			}
			l := New(Options{Now: at1000().Now})
			d := l.Check(context.Background(), tt.req, client, NewRoute("r", RulesOf(policy(t, "p", rl(tt.selector)))))
			if d.Applied() != tt.applies {
				t.Fatalf("applies %v, want %v", d.Applied(), tt.applies)
			}
		})
	}
}

func TestDistinctSourceAndSharedCounters(t *testing.T) {
	l := New(Options{Now: at1000().Now})
	p := policy(t, "p", `    global:
      rules:
        - clientSelectors: [{sourceCIDR: {type: Distinct, value: 10.0.0.0/8}}]
          limit: {requests: 5, unit: Hour}
        - limit: {requests: 10, unit: Hour}
          shared: true
`)
	a, b := NewRoute("a", RulesOf(p)), NewRoute("b", RulesOf(p))
	check := func(rt *Route, ip string) headers {
		return headersOf(l.Check(context.Background(), request("GET", "/"), netip.MustParseAddr(ip), rt))
	}
	if h := check(a, "10.0.0.1"); h != (headers{"5, 5;w=3600, 10;w=3600", "4", "2600"}) {
		t.Fatalf("first: %+v", h)
	}
	if h := check(a, "10.0.0.2"); h.remaining != "4" {
		t.Fatalf("another address has its own counter: %+v", h)
	}
	// The shared rule counts across routes: 2 so far, the third leaves 7.
	if h := check(b, "192.168.0.1"); h != (headers{"10, 10;w=3600", "7", "2600"}) {
		t.Fatalf("shared: %+v", h)
	}
	// The per-address rule is per route: 10.0.0.1 starts afresh on b.
	if h := check(b, "10.0.0.1"); h.remaining != "4" {
		t.Fatalf("per route: %+v", h)
	}
}

func TestLeastRemainingRuleGivesTheHeaders(t *testing.T) {
	l := New(Options{Now: at1000().Now})
	rt := NewRoute("r", RulesOf(policy(t, "p", `    global:
      rules:
        - limit: {requests: 100, unit: Second}
        - limit: {requests: 2, unit: Hour}
`)))
	d := l.Check(context.Background(), request("GET", "/"), loopback, rt)
	if h := headersOf(d); h != (headers{"2, 100;w=1, 2;w=3600", "1", "2600"}) {
		t.Fatalf("%+v", h)
	}
	l.Check(context.Background(), request("GET", "/"), loopback, rt)
	if d := l.Check(context.Background(), request("GET", "/"), loopback, rt); d.Outcome != Limited {
		t.Fatalf("any rule over its limit refuses: %+v", d)
	}
}

func TestShadowModeNeverRefuses(t *testing.T) {
	l := New(Options{Now: at1000().Now})
	rt := NewRoute("r", RulesOf(policy(t, "p", "    global:\n      rules: [{limit: {requests: 1, unit: Hour}, shadowMode: true}]\n")))
	for range 3 {
		if d := l.Check(context.Background(), request("GET", "/"), loopback, rt); d.Outcome != Pass {
			t.Fatalf("%+v", d)
		}
	}
}

// countingStore counts calls and can fail.
type countingStore struct {
	Store
	mu    sync.Mutex
	calls int
	err   error
}

func (s *countingStore) Incr(ctx context.Context, hits []Hit) ([]int64, error) {
	s.mu.Lock()
	s.calls++
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return s.Store.Incr(ctx, hits)
}

func TestLocalRefusalDoesNotCountGlobally(t *testing.T) {
	c := at1000()
	global := &countingStore{Store: NewMemory(c.Now)}
	l := New(Options{Now: c.Now, Global: global})
	rt := NewRoute("r", RulesOf(policy(t, "p", `    global:
      rules: [{limit: {requests: 10, unit: Minute}}]
    local:
      rules: [{limit: {requests: 1, unit: Minute}}]
`)))
	if d := l.Check(context.Background(), request("GET", "/"), loopback, rt); d.Outcome != Pass || headersOf(d).limit != "1, 1;w=60, 10;w=60" {
		t.Fatalf("first: %+v %+v", d, headersOf(d))
	}
	d := l.Check(context.Background(), request("GET", "/"), loopback, rt)
	if d.Outcome != Limited || !d.Local || headersOf(d) != (headers{"1, 1;w=60", "0", "20"}) {
		t.Fatalf("second: %+v %+v", d, headersOf(d))
	}
	if global.calls != 1 {
		t.Fatalf("a request refused locally reached the global store: %d calls", global.calls)
	}
}

func TestGlobalStoreFailure(t *testing.T) {
	rt := NewRoute("r", RulesOf(policy(t, "p", distinctPerMinute)))
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	store := &countingStore{Store: NewMemory(nil), err: errors.New("connection refused")}
	open := New(Options{Global: store, Log: log})
	closed := New(Options{Global: store, Log: log, FailClosed: true})
	req := func() *http.Request { return request("GET", "/", "x-user-id", "alice") }
	for range 5 {
		if d := open.Check(context.Background(), req(), loopback, rt); d.Outcome != Pass || d.Applied() {
			t.Fatalf("fail open: %+v", d)
		}
	}
	if d := closed.Check(context.Background(), req(), loopback, rt); d.Outcome != Failed {
		t.Fatalf("fail closed: %+v", d)
	}
	if n := strings.Count(logs.String(), "rate-limit store unavailable"); n != 2 {
		t.Fatalf("want one line per limiter within %v, got %d:\n%s", FailureLogInterval, n, logs.String())
	}
	store.mu.Lock()
	store.err = nil
	store.mu.Unlock()
	if d := open.Check(context.Background(), req(), loopback, rt); d.Outcome != Pass || headersOf(d).remaining != "2" {
		t.Fatalf("recovered: %+v", headersOf(d))
	}
	if !strings.Contains(logs.String(), "rate-limit store available again") {
		t.Fatalf("no recovery line:\n%s", logs.String())
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestMemoryForgetsEndedWindows(t *testing.T) {
	c := at1000()
	m := NewMemory(c.Now)
	_, _ = m.Incr(context.Background(), []Hit{{Key: "a", TTL: time.Second, Add: 1}, {Key: "b", TTL: time.Hour, Add: 1}})
	c.add(sweepInterval)
	if n, _ := m.Incr(context.Background(), []Hit{{Key: "a", TTL: time.Minute, Add: 1}}); n[0] != 1 {
		t.Fatalf("an ended counter must start again: %v", n)
	}
	if m.Len() != 2 {
		t.Fatalf("len %d", m.Len())
	}
}
