package gateway

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"

	"github.com/fortune-tck/fortune-tck/internal/ratelimittest"
	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// serviceStack is envoyproxy/ratelimit on a real Redis, with the folder of
// manifests its gateways serve.
type serviceStack struct {
	redis   *redistest.Server
	service *ratelimittest.Service
	up      *upstream
	dir     string
}

func startServiceStack(t *testing.T, policy string, env ...string) *serviceStack {
	t.Helper()
	s := &serviceStack{redis: redistest.Start(t), up: startUpstream(t), dir: t.TempDir()}
	s.service = ratelimittest.Start(t, s.redis.Addr(), env...)
	writeFiles(t, s.dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(s.up.addr()), "policy.yaml": policy})
	return s
}

// gateway starts a gateway that asks the service and writes its
// configuration.
func (s *serviceStack) gateway(t *testing.T, o Options) *testGateway {
	t.Helper()
	o.RateLimitService, o.RateLimitServiceConfig = s.service.URL(), s.service.ConfigDir
	return startGateway(t, s.dir, o)
}

// fortuneRoute is the route of routeYAML on the HTTP listener of
// gatewayYAML, as Envoy Gateway names it.
const fortuneRoute = "default/eg/http.httproute/default/fortune/rule/0/match/0/fortune_example_local_httproute/default/fortune/rule/0/match/0/fortune_example_local"

// TestServiceThreeRequests: two gateways ask one envoyproxy/ratelimit: the
// fourth request of a user gets 429, whichever gateway it reaches, with the
// headers Envoy makes of the service's answers; each x-user-id has its
// counter; a request without it is not counted. The service's own headers
// (LIMIT_RESPONSE_HEADERS_ENABLED) reach the client, as through Envoy.
func TestServiceThreeRequests(t *testing.T) {
	s := startServiceStack(t, policyYAML("Global", distinctRule(3, "Minute")), "LIMIT_RESPONSE_HEADERS_ENABLED=true")
	gws := []*testGateway{s.gateway(t, Options{}), s.gateway(t, Options{})}
	s.service.WaitConfig(t, fortuneRoute+".rule-0-match-0: unit=MINUTE requests_per_unit=3")
	freshWindow(time.Minute, 10*time.Second)
	user := "alice-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for i, want := range []string{"2", "1", "0"} {
		a := send(t, "GET", gws[i%2].url(t, 10080)+"/", "x-user-id", user)
		if a.status != 200 || a.header.Get("X-Ratelimit-Limit") != "3, 3;w=60" || a.header.Get("X-Ratelimit-Remaining") != want {
			t.Fatalf("request %d: %d %v", i+1, a.status, a.rateHeaders())
		}
		if a.header.Get("Ratelimit-Remaining") != want {
			t.Errorf("request %d: the service's own headers did not pass: %v", i+1, a.header)
		}
	}
	a := send(t, "GET", gws[1].url(t, 10080)+"/", "x-user-id", user)
	if a.status != 429 || a.header.Get("X-Proxy-Ratelimited") != "true" || a.rateHeaders()[0] != "3, 3;w=60" || a.rateHeaders()[1] != "0" {
		t.Fatalf("request 4: %d %v", a.status, a.header)
	}
	if reset := windowLeft(t, a, 60); reset < 1 || reset > 60 {
		t.Fatalf("reset %d", reset)
	}
	lines := gws[1].accessLines(t)
	if l := lines[len(lines)-1]; l["response_code"] != "429" || l["response_flags"] != "RL" || l["response_code_details"] != "request_rate_limited" || l["upstream_host"] != "-" {
		t.Fatalf("access log: %v", l)
	}
	if n := s.up.hits.Load(); n != 3 {
		t.Fatalf("upstream got %d requests, want 3", n)
	}
	if a := send(t, "GET", gws[0].url(t, 10080)+"/", "x-user-id", user+"-other"); a.status != 200 || a.rateHeaders()[1] != "2" {
		t.Fatalf("another x-user-id: %d %v", a.status, a.rateHeaders())
	}
	if a := send(t, "GET", gws[0].url(t, 10080)+"/"); a.status != 200 || a.rateHeaders() != [3]string{"from upstream", "", ""} {
		t.Fatalf("without x-user-id: %d %v", a.status, a.rateHeaders())
	}
}

// windowLeft checks that a's x-ratelimit-reset is the time left in its
// window of w seconds, by this machine's clock (the service's), within a
// second for the time the request took.
func windowLeft(t *testing.T, a answer, w int64) int64 {
	t.Helper()
	reset, err := strconv.ParseInt(a.rateHeaders()[2], 10, 64)
	if err != nil {
		t.Fatalf("x-ratelimit-reset %q", a.rateHeaders()[2])
	}
	left := w - time.Now().Unix()%w
	if reset != left && reset != left+1 && !(left == w && reset == 1) {
		t.Fatalf("x-ratelimit-reset %d, window of %d s has %d s left", reset, w, left)
	}
	return reset
}

// TestServiceUnits: Second, Minute, Hour and Day rules, each 2 per unit:
// the third request is refused, x-ratelimit-limit names the window, and
// x-ratelimit-reset is what is left of it.
func TestServiceUnits(t *testing.T) {
	units := []struct {
		unit string
		w    int64
	}{{"Second", 1}, {"Minute", 60}, {"Hour", 3600}, {"Day", 86400}}
	var rules strings.Builder
	for _, u := range units {
		fmt.Fprintf(&rules, "        - clientSelectors: [{headers: [{name: x-unit, value: %s}, {name: x-user-id, type: Distinct}]}]\n          limit: {requests: 2, unit: %s}\n", u.unit, u.unit)
	}
	s := startServiceStack(t, policyYAML("Global", rules.String()))
	base := s.gateway(t, Options{}).url(t, 10080)
	s.service.WaitConfig(t, "unit=SECOND", "unit=MINUTE", "unit=HOUR", "unit=DAY")
	freshWindow(time.Minute, 5*time.Second)
	for _, u := range units {
		t.Run(u.unit, func(t *testing.T) {
			limit := fmt.Sprintf("2, 2;w=%d", u.w)
			// A Second window may end between two requests: then the
			// remaining count goes up again, and the test starts over
			// with another user.
			for try := 0; ; try++ {
				user := fmt.Sprintf("%s-%d-%d", u.unit, time.Now().UnixNano(), try)
				var got []string
				for range 3 {
					a := send(t, "GET", base+"/", "x-unit", u.unit, "x-user-id", user)
					if a.rateHeaders()[0] != limit {
						t.Fatalf("x-ratelimit-limit %q, want %q", a.rateHeaders()[0], limit)
					}
					got = append(got, fmt.Sprintf("%d:%s", a.status, a.rateHeaders()[1]))
					if a.status == 429 {
						windowLeft(t, a, u.w)
					}
				}
				if strings.Join(got, " ") == "200:1 200:0 429:0" {
					return
				}
				if u.w > 1 || try == 4 {
					t.Fatalf("status:remaining %v, want 200:1 200:0 429:0", got)
				}
			}
		})
	}
}

// TestServiceOutage stops the service mid-run: a gateway that fails open
// lets requests through without headers (one log line for the outage), one
// that fails closed answers 500 with flag RLSE; both ask again once the
// service is back, by themselves.
func TestServiceOutage(t *testing.T) {
	s := startServiceStack(t, policyYAML("Global", plainRule(1000, "Hour")))
	open := s.gateway(t, Options{})
	closed := s.gateway(t, Options{FailClosed: true})
	openURL, closedURL := open.url(t, 10080), closed.url(t, 10080)
	s.service.WaitConfig(t, "rule-0-match--1: unit=HOUR requests_per_unit=1000")
	freshWindow(time.Hour, 30*time.Second)
	if a := send(t, "GET", openURL+"/"); a.status != 200 || a.rateHeaders()[1] != "999" {
		t.Fatalf("before: %d %v", a.status, a.rateHeaders())
	}
	s.service.Stop()
	for range 5 {
		if a := send(t, "GET", openURL+"/"); a.status != 200 || a.rateHeaders() != [3]string{"from upstream", "", ""} {
			t.Fatalf("fail open: %d %v", a.status, a.rateHeaders())
		}
	}
	if n := strings.Count(open.logs.String(), "rate limit service unavailable; letting requests pass (fail open)"); n != 1 {
		t.Fatalf("want one log line for the outage, got %d:\n%s", n, open.logs)
	}
	if a := send(t, "GET", closedURL+"/"); a.status != 500 {
		t.Fatalf("fail closed: %d", a.status)
	}
	lines := closed.accessLines(t)
	if l := lines[len(lines)-1]; l["response_code"] != "500" || l["response_flags"] != "RLSE" || l["response_code_details"] != "rate_limiter_error" || l["upstream_host"] != "-" {
		t.Fatalf("access log: %v", l)
	}
	s.service.Restart()
	for _, g := range []struct{ name, url string }{{"open", openURL}, {"closed", closedURL}} {
		eventually(t, 10*time.Second, g.name+" gateway asking again", func() bool {
			a := send(t, "GET", g.url+"/")
			return a.status == 200 && a.rateHeaders()[0] == "1000, 1000;w=3600"
		})
	}
	if !strings.Contains(open.logs.String(), "rate limit service available again") {
		t.Errorf("no recovery line:\n%s", open.logs)
	}
}

// TestServiceGarbageAndSilence: a "service" that answers garbage, one that
// answers ShouldRateLimit with an empty answer (no overall code), and one
// that accepts and never answers (the call times out): the policy's
// failure mode decides, never another 5xx, and a burst of failures is one
// log line.
func TestServiceGarbageAndSilence(t *testing.T) {
	garbage := listen(t, func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\ngarbage"))
		_ = c.Close()
	})
	silent := listen(t, func(c net.Conn) {}) // keeps the connection open, says nothing
	empty := emptyAnswers(t)
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(1, "Hour"))})
	for _, svc := range []struct{ name, addr string }{{"garbage", garbage}, {"empty answer", empty}, {"silent", silent}} {
		t.Run(svc.name, func(t *testing.T) {
			o := Options{RateLimitService: "grpc://" + svc.addr, RateLimitServiceTimeout: 200 * time.Millisecond}
			open := startGateway(t, dir, o)
			o.FailClosed = true
			closed := startGateway(t, dir, o)
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() {
					if a := send(t, "GET", open.url(t, 10080)+"/"); a.status != 200 {
						t.Errorf("fail open: %d %q", a.status, a.body)
					}
					if a := send(t, "GET", closed.url(t, 10080)+"/"); a.status != 500 {
						t.Errorf("fail closed: %d %q", a.status, a.body)
					}
				})
			}
			wg.Wait()
			if n := strings.Count(open.logs.String(), "rate limit service unavailable"); n != 1 {
				t.Errorf("fail open: %d log lines for the burst, want 1:\n%s", n, open.logs)
			}
			if n := strings.Count(closed.logs.String(), "rate limit service unavailable; refusing requests (fail closed)"); n != 1 {
				t.Errorf("fail closed: %d log lines for the burst, want 1:\n%s", n, closed.logs)
			}
		})
	}
}

// emptyAnswers is a gRPC server whose ShouldRateLimit answers an empty
// RateLimitResponse; it returns the address.
func emptyAnswers(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rlsv3.RegisterRateLimitServiceServer(srv, emptyService{})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

type emptyService struct {
	rlsv3.UnimplementedRateLimitServiceServer
}

func (emptyService) ShouldRateLimit(context.Context, *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	return &rlsv3.RateLimitResponse{}, nil
}

// listen serves each connection on a loopback port with handle, and
// returns the address.
func listen(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); conns.Wait() })
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			conns.Go(func() { handle(c) })
		}
	}()
	return ln.Addr().String()
}

// TestServiceConfigFollowsManifests: a changed policy reaches the service
// (the gateway rewrites its file, the service reloads it), and a removed
// one leaves no file behind.
func TestServiceConfigFollowsManifests(t *testing.T) {
	s := startServiceStack(t, policyYAML("Global", distinctRule(3, "Minute")))
	g := s.gateway(t, Options{})
	s.service.WaitConfig(t, fortuneRoute+".rule-0-match-0: unit=MINUTE requests_per_unit=3")
	writeFiles(t, s.dir, map[string]string{"policy.yaml": policyYAML("Global", distinctRule(5, "Hour"))})
	s.service.WaitConfig(t, fortuneRoute+".rule-0-match-0: unit=HOUR requests_per_unit=5")
	if a := send(t, "GET", g.url(t, 10080)+"/", "x-user-id", "follows-"+strconv.FormatInt(time.Now().UnixNano(), 36)); a.rateHeaders()[0] != "5, 5;w=3600" || a.rateHeaders()[1] != "4" {
		t.Fatalf("after the change: %d %v", a.status, a.rateHeaders())
	}
	if err := os.Remove(filepath.Join(s.dir, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the service's files removed", func() bool {
		files, _ := filepath.Glob(filepath.Join(s.service.ConfigDir, "gateway-*.yaml"))
		return len(files) == 0
	})
}

// TestServiceBurstAdmitsExactly: 4 gateways take 1000 requests each at
// once, all on one counter of limit 100 in envoyproxy/ratelimit: exactly
// 100 pass (the service's INCRBY decides), the others get 429, and none
// fails open (the timeout is long enough for the service to answer the
// whole burst).
func TestServiceBurstAdmitsExactly(t *testing.T) {
	const gateways, perGateway, limit = 4, 1000, 100
	s := startServiceStack(t, policyYAML("Global", plainRule(limit, "Hour")))
	var gws []*testGateway
	for range gateways {
		gws = append(gws, s.gateway(t, Options{AccessLog: io.Discard, RateLimitServiceTimeout: 30 * time.Second}))
	}
	s.service.WaitConfig(t, "rule-0-match--1: unit=HOUR requests_per_unit=100")
	freshWindow(time.Hour, time.Minute)
	// One request through each gateway first, counted by the service: every gateway's connection to it is up
	// before the burst, which then measures admission, not a gateway still connecting (it would fail open).
	for i, g := range gws {
		req, _ := http.NewRequest("GET", g.url(t, 10080)+"/", nil)
		req.Host = testHost
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("X-Ratelimit-Remaining") != strconv.Itoa(limit-1-i) {
			t.Fatalf("warm-up through gateway %d: %d, remaining %q, want 200 and %d", i+1, resp.StatusCode,
				resp.Header.Get("X-Ratelimit-Remaining"), limit-1-i)
		}
	}
	passed, refused := burst(t, gws, perGateway)
	want := int64(limit - gateways) // the warm-up took one each
	if passed != want || refused != gateways*perGateway-want || s.up.hits.Load() != limit {
		t.Fatalf("passed %d, refused %d, upstream hits %d; want %d, %d, %d", passed, refused, s.up.hits.Load(), want, gateways*perGateway-want, limit)
	}
}
