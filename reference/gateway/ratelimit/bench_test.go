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
// as the gateway under load does:
//
//	Baseline  a plain INCR per request through go-redis's pool
//	Store     the Global store: batched, one script run per batch, expiry set
//
// Besides this process's CPU it reports Redis's own time per request
// (redis-µs/op, from INFO commandstats): Redis shares the machine with the
// gateway, so its time is the gateway's throughput too.
func BenchmarkRedisIncr(b *testing.B) {
	srv := redistest.Start(b)
	store := newStore(b, srv)
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 64})
	defer raw.Close()
	ctx := context.Background()
	if _, err := store.Incr(ctx, []Hit{{Key: "warm-up", TTL: time.Minute, Add: 1}}); err != nil {
		b.Fatal(err)
	}
	b.Run("Baseline", func(b *testing.B) {
		benchRedis(b, raw, func(key string) error { return raw.Incr(ctx, key).Err() })
	})
	b.Run("Store", func(b *testing.B) {
		benchRedis(b, raw, func(key string) error {
			_, err := store.Incr(ctx, []Hit{{Key: key, TTL: time.Hour, Add: 1}})
			return err
		})
	})
}

// benchRedis runs incr from 32 goroutines, each on its own key, and
// reports the CPU of this process and of Redis per call.
func benchRedis(b *testing.B, raw *redis.Client, incr func(key string) error) {
	ctx := context.Background()
	if err := raw.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ReportAllocs()
	stop := cpubench.Report(b)
	b.RunParallel(func(pb *testing.PB) {
		key := "user-" + strconv.FormatInt(n.Add(1), 10)
		for pb.Next() {
			if err := incr(key); err != nil {
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
	b.ReportMetric(float64(commandUsec(info, "incr")+commandUsec(info, "evalsha")+commandUsec(info, "eval"))/float64(b.N), "redis-µs/op")
}

// commandUsec is the time Redis spent in one command, from INFO
// commandstats (usec=N of its cmdstat_ line).
func commandUsec(info, name string) int64 {
	for _, line := range strings.Split(info, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+name+":")
		if !ok {
			continue
		}
		_, v, _ := strings.Cut(rest, ",usec=")
		v, _, _ = strings.Cut(v, ",")
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}
