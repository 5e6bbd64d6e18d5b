package ratelimit

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fortune-tck/fortune-tck/internal/cpubench"
	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// BenchmarkRedisIncr counts one request's hit from 32 goroutines at once,
// as the gateway under load does. Besides this process's CPU it reports
// Redis's own time per request (redis-µs/op, from INFO commandstats):
// Redis shares the machine with the gateway, so its time is the gateway's
// throughput too.
func BenchmarkRedisIncr(b *testing.B) {
	srv := redistest.Start(b)
	store, err := NewRedis(srv.URL(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	ctx := context.Background()
	if _, err := store.Incr(ctx, []Hit{{Key: "warm-up", TTL: time.Minute}}); err != nil {
		b.Fatal(err)
	}
	if err := raw.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ReportAllocs()
	stop := cpubench.Report(b)
	b.RunParallel(func(pb *testing.PB) {
		hit := []Hit{{Key: "user-" + strconv.FormatInt(n.Add(1), 10), TTL: time.Hour}}
		for pb.Next() {
			if _, err := store.Incr(ctx, hit); err != nil {
				b.Error(err)
				return
			}
		}
	})
	stop()
	info, err := raw.Info(ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(commandUsec(info))/float64(b.N), "redis-µs/op")
}

// commandUsec is the time Redis spent in all commands, from INFO
// commandstats (usec=N of each cmdstat_ line).
func commandUsec(info string) int64 {
	var total int64
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, ",usec=")
		if !ok || !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		v, _, _ := strings.Cut(rest, ",")
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
	}
	return total
}
