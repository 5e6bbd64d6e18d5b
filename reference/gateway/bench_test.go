package gateway

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// BenchmarkProxy measures one GET, all on loopback with keep-alive:
//
//	Baseline  the upstream called directly
//	Memory    through the gateway, Global counters in memory
//	Redis     through the gateway, Global counters in a real Redis
//
// The limit is high enough never to refuse; the access log is discarded.
func BenchmarkProxy(b *testing.B) {
	up := startUpstream(b)
	b.Run("Baseline", func(b *testing.B) { benchGet(b, up.URL+"/") })
	b.Run("Memory", func(b *testing.B) { benchGet(b, benchGateway(b, up, "")+"/") })
	b.Run("Redis", func(b *testing.B) { benchGet(b, benchGateway(b, up, redistest.Start(b).URL())+"/") })
}

func benchGateway(b *testing.B, up *upstream, redisURL string) string {
	dir := b.TempDir()
	writeFiles(b, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", distinctRule(1_000_000_000, "Hour"))})
	return startGateway(b, dir, Options{RedisURL: redisURL, AccessLog: io.Discard}).url(b, 10080)
}

func benchGet(b *testing.B, url string) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Host = testHost
	req.Header.Set("x-user-id", "bench")
	for b.Loop() {
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkReloadOneFile measures the reload the gateway does when one
// manifest file of a directory changed (what follows a notification, the
// debounce aside), with one HTTPRoute per file:
//
//	Baseline     1 route
//	Routes5000   5,000 routes: within 2x of Baseline is the goal
func BenchmarkReloadOneFile(b *testing.B) {
	b.Run("Baseline", func(b *testing.B) { benchReloadOneFile(b, 1) })
	b.Run("Routes5000", func(b *testing.B) { benchReloadOneFile(b, 5000) })
}

func benchReloadOneFile(b *testing.B, routes int) {
	dir := b.TempDir()
	files := map[string]string{"gw.yaml": gatewayYAML + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: up}\nspec:\n  endpoints: [{ip: {address: 127.0.0.1, port: 9}}]\n"}
	for i := range routes {
		files[fmt.Sprintf("r%05d.yaml", i)] = oneRoute(i, "/v0")
	}
	writeFiles(b, dir, files)
	gw := startGateway(b, dir, Options{AccessLog: io.Discard, Rescan: time.Hour, Debounce: time.Hour})
	k := 0
	for b.Loop() {
		k++
		b.StopTimer()
		writeFiles(b, dir, map[string]string{"r00000.yaml": oneRoute(0, "/v"+strconv.Itoa(k))})
		b.StartTimer()
		if err := gw.reloadFiles([]string{"r00000.yaml"}); err != nil {
			b.Fatal(err)
		}
	}
}
