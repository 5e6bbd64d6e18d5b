package gateway

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// upstream is a real backend on loopback that counts the requests it gets
// and echoes what the gateway sent it.
type upstream struct {
	*httptest.Server
	hits    atomic.Int64
	release chan struct{} // /slow waits for it
	arrived chan struct{} // /slow signals its arrival
}

func startUpstream(t testing.TB) *upstream {
	u := &upstream{release: make(chan struct{}), arrived: make(chan struct{}, 16)}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		if r.URL.Path == "/slow" {
			u.arrived <- struct{}{}
			<-u.release
		}
		w.Header().Set("X-Ratelimit-Limit", "from upstream")
		w.Header().Set("X-Seen-Host", r.Host)
		w.Header().Set("X-Seen-Request-Id", r.Header.Get("X-Request-Id"))
		w.Header().Set("X-Seen-Forwarded-For", r.Header.Get("X-Forwarded-For"))
		w.Header().Set("X-Seen-Forwarded-Proto", r.Header.Get("X-Forwarded-Proto"))
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "fortune for %s %s (%d bytes)", r.Method, r.URL.Path, len(body))
	}))
	t.Cleanup(u.Close)
	return u
}

// addr is the upstream's ip:port.
func (u *upstream) addr() string { return strings.TrimPrefix(u.URL, "http://") }

const testHost = "fortune.example.local"

// gatewayYAML has an HTTP listener on 10080 and an HTTPS one on 10443.
const gatewayYAML = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg}
spec:
  gatewayClassName: eg
  listeners:
    - {name: http, protocol: HTTP, port: 10080}
    - {name: https, protocol: HTTPS, port: 10443}
`

// routeYAML sends fortune.example.local to the Backend "up" at addr.
func routeYAML(addr string) string {
	host, port, _ := strings.Cut(addr, ":")
	return `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: fortune}
spec:
  parentRefs: [{name: eg}]
  hostnames: [` + testHost + `]
  rules:
    - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: up}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: up}
spec:
  endpoints: [{ip: {address: ` + host + `, port: ` + port + `}}]
`
}

// policyYAML limits the route fortune with the given rules.
func policyYAML(typ, rules string) string {
	return `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: limit}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: fortune}]
  rateLimit:
    type: ` + typ + `
    ` + strings.ToLower(typ) + `:
      rules:
` + rules
}

// distinctRule is the spec's example: requests per unit per x-user-id.
func distinctRule(requests int, unit string) string {
	return fmt.Sprintf("        - clientSelectors: [{headers: [{name: x-user-id, type: Distinct}]}]\n          limit: {requests: %d, unit: %s}\n", requests, unit)
}

func plainRule(requests int, unit string) string {
	return fmt.Sprintf("        - limit: {requests: %d, unit: %s}\n", requests, unit)
}

// writeFiles writes name -> content into dir, each file atomically (as
// editors and kubectl-like tools do), so a reload never sees half a file.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// testGateway is a gateway started on free ports, with its logs.
type testGateway struct {
	*Gateway
	dir          string
	access, logs *syncbuf.Buffer
}

func startGateway(t testing.TB, dir string, o Options) *testGateway {
	t.Helper()
	tg := &testGateway{dir: dir, access: &syncbuf.Buffer{}, logs: &syncbuf.Buffer{}}
	o.Dir, o.FreePorts = dir, true
	if o.AccessLog == nil {
		o.AccessLog = tg.access
	}
	o.Logger = slog.New(slog.NewTextHandler(tg.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if o.Debounce == 0 {
		o.Debounce = 20 * time.Millisecond
	}
	g, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	tg.Gateway = g
	t.Cleanup(func() { _ = g.Close() })
	return tg
}

// url is the base URL of the listener with manifest port port.
func (tg *testGateway) url(t testing.TB, port int) string {
	t.Helper()
	for _, l := range tg.Listeners() {
		if l.Port == port {
			return l.URL()
		}
	}
	t.Fatalf("port %d not served; listeners %+v", port, tg.Listeners())
	return ""
}

// accessLines are the access-log lines written so far.
func (tg *testGateway) accessLines(t testing.TB) []map[string]string {
	t.Helper()
	var lines []map[string]string
	for _, l := range strings.Split(strings.TrimSpace(tg.access.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("access-log line is not JSON of strings: %v\n%s", err, l)
		}
		lines = append(lines, m)
	}
	return lines
}

// client trusts any certificate (the listeners' are self-signed) and
// offers HTTP/2.
var client = &http.Client{
	Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true, ServerName: testHost},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
	},
	Timeout: 10 * time.Second,
}

// answer is a response, read whole.
type answer struct {
	status int
	header http.Header
	body   string
	proto  string
	tls    *tls.ConnectionState
}

// send makes a request to the gateway with Host fortune.example.local.
func send(t testing.TB, method, url string, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = testHost
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(body), proto: resp.Proto, tls: resp.TLS}
}

// rateHeaders are the three rate-limit headers of a.
func (a answer) rateHeaders() [3]string {
	return [3]string{a.header.Get("X-Ratelimit-Limit"), a.header.Get("X-Ratelimit-Remaining"), a.header.Get("X-Ratelimit-Reset")}
}

// freshWindow waits, when less than margin is left in the current window
// of w, for the next one to start, so that a test's requests fall into one
// window. It never waits longer than margin.
func freshWindow(w, margin time.Duration) {
	now := time.Now()
	left := w - time.Duration(now.UnixNano())%w
	if left < margin {
		time.Sleep(left + 20*time.Millisecond)
	}
}

// eventually polls cond every 20ms until it holds or timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// burst sends perGateway requests through each of the gateways at once, all released together, and counts
// the 200s and 429s; any other answer fails the test. It then fails the test for a gateway that logged failing
// open: a burst measures admission, not a counter that could not be reached.
func burst(t *testing.T, gws []*testGateway, perGateway int) (passed, refused int64) {
	t.Helper()
	var urls []string
	for _, g := range gws {
		urls = append(urls, g.url(t, 10080)+"/")
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: perGateway}, Timeout: time.Minute}
	t.Cleanup(client.CloseIdleConnections)
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range len(gws) * perGateway {
		wg.Go(func() {
			req, err := http.NewRequest("GET", urls[i%len(urls)], nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Host = testHost
			<-start
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case 200:
				ok.Add(1)
			case 429:
				limited.Add(1)
			default:
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	close(start)
	wg.Wait()
	for i, g := range gws {
		if strings.Contains(g.logs.String(), "fail open") {
			t.Errorf("gateway %d failed open during the burst:\n%s", i+1, g.logs)
		}
	}
	return ok.Load(), limited.Load()
}
