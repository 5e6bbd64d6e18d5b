package gateway

import (
	"io"
	"net/http"
	"testing"

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
