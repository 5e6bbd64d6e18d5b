package gateway

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/cpubench"
	"github.com/fortune-tck/fortune-tck/internal/ratelimittest"
	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// BenchmarkCounting compares the two ways Global rules are counted, one
// GET through the gateway from 16 clients at once, every request counted
// (a Distinct rule, one user per client, a limit never reached):
//
//	Redis    the gateway's own counters in a real Redis
//	Service  asked of envoyproxy/ratelimit (gRPC), which counts in its Redis
//
// Besides the gateway's CPU per request (cpu-ns/op, this process: the
// upstream too, the same in both) it reports the CPU per request of the
// processes that count (helpers-cpu-ns/op: Redis; the service and its
// Redis), which share the machine with the gateway.
func BenchmarkCounting(b *testing.B) {
	up := startUpstream(b)
	policy := policyYAML("Global", distinctRule(1_000_000_000, "Hour"))
	b.Run("Redis", func(b *testing.B) {
		redis := redistest.Start(b)
		dir := b.TempDir()
		writeFiles(b, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policy})
		url := startGateway(b, dir, Options{RedisURL: redis.URL(), AccessLog: io.Discard}).url(b, 10080)
		benchParallel(b, url+"/", redis.PID())
	})
	b.Run("Service", func(b *testing.B) {
		redis := redistest.Start(b)
		service := ratelimittest.Start(b, redis.Addr(), "LOG_LEVEL=warn")
		dir := b.TempDir()
		writeFiles(b, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policy})
		url := startGateway(b, dir, Options{RateLimitService: service.URL(), RateLimitServiceConfig: service.ConfigDir, AccessLog: io.Discard}).url(b, 10080)
		service.WaitConfig(b, "requests_per_unit=1000000000")
		benchParallel(b, url+"/", redis.PID(), service.PID())
	})
}

func benchParallel(b *testing.B, url string, helpers ...int) {
	var users atomic.Int64
	b.SetParallelism(8) // 16 clients on 2 CPUs
	before := procsCPU(b, helpers)
	stop := cpubench.Report(b)
	b.RunParallel(func(pb *testing.PB) {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			b.Error(err)
			return
		}
		req.Host = testHost
		req.Header.Set("x-user-id", "bench-"+strconv.FormatInt(users.Add(1), 10))
		for pb.Next() {
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Ratelimit-Limit") == "" {
				b.Errorf("status %d, x-ratelimit-limit %q", resp.StatusCode, resp.Header.Get("X-Ratelimit-Limit"))
				return
			}
		}
	})
	stop()
	b.ReportMetric(float64(procsCPU(b, helpers)-before)/float64(b.N), "helpers-cpu-ns/op")
}

// procsCPU is the CPU time processes used so far, user and system, from
// /proc/PID/stat (in clock ticks of 10 ms: a benchmark of a few seconds
// makes that fine enough).
func procsCPU(b *testing.B, pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			b.Fatalf("CPU time of process %d: %v", pid, err)
		}
		// The fields after the command name (which may hold spaces): utime is
		// the 14th field of the line, stime the 15th.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		for _, f := range fields[11:13] {
			ticks, _ := strconv.ParseInt(f, 10, 64)
			total += time.Duration(ticks) * 10 * time.Millisecond
		}
	}
	return total
}
