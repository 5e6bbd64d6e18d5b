package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
)

// Sizes of the gateway's scale figure: routes, one HTTPRoute file each.
const (
	gatewaySmallRoutes = 1
	gatewayLargeRoutes = 5_000
)

// scaleGateway measures the reload of one manifest file of a gateway
// serving 1 and 5,000 routes: the time from the file's change (written
// aside and renamed into place, as an editor does) to the first request
// routed by its new version, polled every millisecond, which holds the
// gateway's wait for more changes (200 ms). The gateway's CPU is not
// given: answering the polls would be most of it. The reload's own work
// is BenchmarkReloadOneFile's (make bench).
func scaleGateway(s *stack, r *scaleReport, rounds int) {
	up, err := s.fixedBody("upstream (fixed body)", "")
	var gws [2]*gatewayUnderTest
	for i, n := range []int{gatewaySmallRoutes, gatewayLargeRoutes} {
		if err == nil {
			err = r.ctx.Err()
		}
		if err != nil {
			break
		}
		if gws[i], err = startGateway(s, strings.TrimPrefix(up, "http://"), n); err != nil {
			err = fmt.Errorf("%d routes: %w", n, err)
			break
		}
		defer s.stopOne(gws[i].p)
	}
	// The sizes in turn, so that both meet the machine in the same state.
	for k := 1; err == nil && k <= rounds; k++ {
		for _, g := range gws {
			if err = g.reload(k); err != nil {
				err = fmt.Errorf("%s: %w", g.size, err)
				break
			}
		}
		err = cmp.Or(err, r.ctx.Err())
	}
	var res [2]sized
	if err == nil {
		for i, g := range gws {
			peak, _ := peakMemory(g.p)
			res[i] = sized{size: g.size, wall: medianDuration(g.walls), extra: "peak memory " + mib(peak)}
		}
	}
	r.figure("gateway, reload of one file, change to first request it routes (1 and 5,000 routes)", res[0], res[1], 2, err)
}

// gatewayUnderTest is a gateway on its manifests, and what its reloads
// took.
type gatewayUnderTest struct {
	size, dir, base string
	p               *proc
	client          *http.Client
	walls           []time.Duration
}

// startGateway writes a Gateway, a Backend to upstream and routes route
// files, and starts a gateway on them.
func startGateway(s *stack, upstream string, routes int) (*gatewayUnderTest, error) {
	g := &gatewayUnderTest{size: fmt.Sprintf("%d routes", routes), dir: filepath.Join(s.dir, fmt.Sprintf("gateway-%d", routes)),
		client: &http.Client{Timeout: 5 * time.Second}}
	port, err := freeport.Port()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(g.dir, 0o755); err != nil {
		return nil, err
	}
	gw := gatewayAndBackend(port, upstream)
	if err := os.WriteFile(filepath.Join(g.dir, "gw.yaml"), []byte(gw), 0o644); err != nil {
		return nil, err
	}
	for i := range routes {
		if err := writeRoute(g.dir, i, "/v0"); err != nil {
			return nil, err
		}
	}
	if _, g.p, _, err = s.startTimed("gateway "+g.size, "gateway", "--config", g.dir, "--access-log", os.DevNull); err != nil {
		return nil, err
	}
	g.base = "http://127.0.0.1:" + strconv.Itoa(port)
	if err := waitRouted(g.client, g.base+"/v0", "r0.example", time.Minute); err != nil {
		s.stopOne(g.p)
		return nil, err
	}
	return g, nil
}

// reload changes route 0 to path /v<round> and times until it is routed.
func (g *gatewayUnderTest) reload(round int) error {
	path := "/v" + strconv.Itoa(round)
	t0 := time.Now()
	if err := writeRoute(g.dir, 0, path); err != nil {
		return err
	}
	if err := waitRouted(g.client, g.base+path, "r0.example", 30*time.Second); err != nil {
		return err
	}
	g.walls = append(g.walls, time.Since(t0))
	return nil
}

// writeRoute writes the HTTPRoute r<i> (host r<i>.example, path prefix
// path) aside and renames it into place.
func writeRoute(dir string, i int, path string) error {
	y := fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r%d}
spec:
  parentRefs: [{name: eg}]
  hostnames: [r%d.example]
  rules:
    - matches: [{path: {type: PathPrefix, value: %s}}]
      backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: up}]
`, i, i, path)
	name := fmt.Sprintf("route-%05d.yaml", i)
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(y), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// waitRouted polls url with Host host every millisecond until it is
// routed (200 rather than 404).
func waitRouted(client *http.Client, url, host string, timeout time.Duration) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Host = host
	deadline := time.Now().Add(timeout)
	for {
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(resp.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s (Host %s) not routed within %s: %v", url, host, timeout, err)
		}
		time.Sleep(time.Millisecond)
	}
}
