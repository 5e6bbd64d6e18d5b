package gateway

import (
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// TestThreeGatewaysShareRedis sends 300 concurrent requests through three
// gateways sharing one Redis: exactly `requests` pass in the window, and
// the upstream sees exactly those.
func TestThreeGatewaysShareRedis(t *testing.T) {
	const limit, total, workers = 100, 300, 30
	srv := redistest.Start(t)
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(limit, "Hour"))})
	var bases []string
	for range 3 {
		bases = append(bases, startGateway(t, dir, Options{RedisURL: srv.URL()}).url(t, 10080))
	}
	freshWindow(time.Hour, 30*time.Second)
	var passed, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range total / workers {
				switch a := send(t, "GET", bases[(w+i)%3]+"/"); a.status {
				case 200:
					passed.Add(1)
				case 429:
					refused.Add(1)
				default:
					t.Errorf("status %d: %q", a.status, a.body)
				}
			}
		})
	}
	wg.Wait()
	if passed.Load() != limit || refused.Load() != total-limit || up.hits.Load() != limit {
		t.Fatalf("passed %d, refused %d, upstream hits %d; want %d, %d, %d", passed.Load(), refused.Load(), up.hits.Load(), limit, total-limit, limit)
	}
}

// TestBatchedCountersAdmitExactly: 200 requests at once over 2 gateways
// whose Redis calls are batched, limit 3: exactly 3 pass.
func TestBatchedCountersAdmitExactly(t *testing.T) {
	const limit, total = 3, 200
	srv := redistest.Start(t)
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(limit, "Hour"))})
	bases := []string{
		startGateway(t, dir, Options{RedisURL: srv.URL()}).url(t, 10080),
		startGateway(t, dir, Options{RedisURL: srv.URL()}).url(t, 10080),
	}
	freshWindow(time.Hour, 30*time.Second)
	var passed, refused atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range total {
		wg.Go(func() {
			<-start
			switch a := send(t, "GET", bases[i%2]+"/"); a.status {
			case 200:
				passed.Add(1)
			case 429:
				refused.Add(1)
			default:
				t.Errorf("status %d: %q", a.status, a.body)
			}
		})
	}
	close(start)
	wg.Wait()
	if passed.Load() != limit || refused.Load() != total-limit || up.hits.Load() != limit {
		t.Fatalf("passed %d, refused %d, upstream hits %d; want %d, %d, %d", passed.Load(), refused.Load(), up.hits.Load(), limit, total-limit, limit)
	}
}

// TestRedisOutage stops Redis mid-run: a gateway that fails open lets
// requests through (and logs it), one that fails closed answers 500 with
// flag RLSE; both count again once Redis is back, by themselves.
func TestRedisOutage(t *testing.T) {
	srv := redistest.Start(t)
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(1000, "Hour"))})
	open := startGateway(t, dir, Options{RedisURL: srv.URL()})
	closed := startGateway(t, dir, Options{RedisURL: srv.URL(), FailClosed: true})
	openURL, closedURL := open.url(t, 10080), closed.url(t, 10080)
	freshWindow(time.Hour, 30*time.Second)
	if a := send(t, "GET", openURL+"/"); a.status != 200 || a.rateHeaders()[1] != "999" {
		t.Fatalf("before: %d %v", a.status, a.rateHeaders())
	}
	srv.Stop()
	for range 3 {
		// No counter, no headers of the gateway's (the upstream's own pass).
		if a := send(t, "GET", openURL+"/"); a.status != 200 || a.rateHeaders() != [3]string{"from upstream", "", ""} {
			t.Fatalf("fail open: %d %v", a.status, a.rateHeaders())
		}
	}
	if n := strings.Count(open.logs.String(), "rate-limit store unavailable; letting requests pass (fail open)"); n != 1 {
		t.Fatalf("want one log line for the outage, got %d:\n%s", n, open.logs)
	}
	if a := send(t, "GET", closedURL+"/"); a.status != 500 {
		t.Fatalf("fail closed: %d", a.status)
	}
	lines := closed.accessLines(t)
	if l := lines[len(lines)-1]; l["response_code"] != "500" || l["response_flags"] != "RLSE" || l["response_code_details"] != "rate_limiter_error" || l["upstream_host"] != "-" {
		t.Fatalf("access log: %v", l)
	}
	srv.Restart()
	for _, g := range []struct{ name, url string }{{"open", openURL}, {"closed", closedURL}} {
		eventually(t, 10*time.Second, g.name+" gateway counting again", func() bool {
			a := send(t, "GET", g.url+"/")
			return a.status == 200 && a.rateHeaders()[0] == "1000, 1000;w=3600"
		})
	}
	if !strings.Contains(open.logs.String(), "rate-limit store available again") {
		t.Errorf("no recovery line:\n%s", open.logs)
	}
}

// TestRedisBurstAdmitsExactly: 4 gateways sharing one Redis take 1000
// requests each at once, all on one counter of limit 100: exactly 100 pass
// (the batched script's INCRBYs decide), the others get 429, and none
// fails open. The peer of TestServiceBurstAdmitsExactly for the gateway's
// own counters.
func TestRedisBurstAdmitsExactly(t *testing.T) {
	const gateways, perGateway, limit = 4, 1000, 100
	srv := redistest.Start(t)
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(limit, "Hour"))})
	var gws []*testGateway
	for range gateways {
		// Exact admission is the point, not latency: 4,000 requests at once on a loaded
		// two-core machine can keep a script call waiting past the default second.
		gws = append(gws, startGateway(t, dir, Options{RedisURL: srv.URL() + "?read_timeout=20s&write_timeout=20s&pool_timeout=20s", AccessLog: io.Discard}))
	}
	freshWindow(time.Hour, time.Minute)
	passed, refused := burst(t, gws, perGateway)
	if passed != limit || refused != gateways*perGateway-limit || up.hits.Load() != limit {
		t.Fatalf("passed %d, refused %d, upstream hits %d; want %d, %d, %d", passed, refused, up.hits.Load(), limit, gateways*perGateway-limit, limit)
	}
}
