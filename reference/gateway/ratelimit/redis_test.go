package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

func TestRedisCountsAndExpires(t *testing.T) {
	srv := redistest.Start(t)
	store := newStore(t, srv)
	ctx := context.Background()
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	// The first call loads the script; count the calls after it.
	if _, err := store.Incr(ctx, []Hit{{Key: "warm-up", TTL: time.Second, Add: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := raw.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for want := int64(1); want <= 3; want++ {
		n, err := store.Incr(ctx, []Hit{{Key: "k1", TTL: 30 * time.Second, Add: 1}, {Key: "k2", TTL: time.Hour, Add: 1}})
		if err != nil || n[0] != want || n[1] != want {
			t.Fatalf("%v %v, want %d", n, err, want)
		}
	}
	ttl, err := raw.TTL(ctx, "k1").Result()
	if err != nil || ttl < 29*time.Second || ttl > 31*time.Second {
		t.Fatalf("ttl %v %v", ttl, err)
	}
	// One script call per Incr: one round trip per request.
	info, err := raw.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if calls := commandCalls(info, "evalsha") + commandCalls(info, "eval"); calls != 3 {
		t.Fatalf("%d script calls for 3 requests:\n%s", calls, info)
	}
}

// newStore is a store in srv, closed at the end of the test.
func newStore(tb testing.TB, srv *redistest.Server) *Redis {
	tb.Helper()
	store, err := NewRedis(srv.URL(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	return store
}

// commandCalls reads calls=N of cmdstat_<name> from INFO commandstats.
func commandCalls(info, name string) int {
	for _, line := range strings.Split(info, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+name+":calls=")
		if ok {
			n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
			return n
		}
	}
	return 0
}

// TestRedisAdmitsExactlyTheLimit runs many concurrent requests through
// three limiters sharing one Redis: exactly `requests` pass.
func TestRedisAdmitsExactlyTheLimit(t *testing.T) {
	srv := redistest.Start(t)
	rt := NewRoute("r", RulesOf(policy(t, "p", "    global:\n      rules: [{limit: {requests: 50, unit: Day}}]\n")))
	limiters := make([]*Limiter, 3)
	for i := range limiters {
		store := newStore(t, srv)
		// A fixed clock keeps every request in one window.
		limiters[i] = New(Options{Global: store, Now: func() time.Time { return time.Unix(86400*20000+5, 0) }})
	}
	var passed, failed atomic.Int64
	var wg sync.WaitGroup
	for g := range 30 {
		wg.Go(func() {
			for range 10 {
				switch limiters[g%3].Check(context.Background(), request("GET", "/"), loopback, rt).Outcome {
				case Pass:
					passed.Add(1)
				case Failed:
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if passed.Load() != 50 || failed.Load() != 0 {
		t.Fatalf("passed %d (want 50), failed %d", passed.Load(), failed.Load())
	}
}

func TestRedisOutageAndRecovery(t *testing.T) {
	srv := redistest.Start(t)
	store := newStore(t, srv)
	ctx := context.Background()
	hit := []Hit{{Key: "k", TTL: time.Hour, Add: 1}}
	if _, err := store.Incr(ctx, hit); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if _, err := store.Incr(ctx, hit); err == nil || !strings.Contains(err.Error(), srv.Addr()) {
		t.Fatalf("want an error naming Redis, got %v", err)
	}
	srv.Restart()
	// go-redis reconnects by itself; the script is loaded again (the new
	// server starts empty, so the count starts again).
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := store.Incr(ctx, hit)
		if err == nil {
			if n[0] != 1 {
				t.Fatalf("count %d after restart", n[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestNewRedisRefusesABadURL(t *testing.T) {
	if _, err := NewRedis("http://x", nil); err == nil || !strings.Contains(err.Error(), "invalid Redis URL") {
		t.Fatal(err)
	}
	r, err := NewRedis("redis://user:secret@127.0.0.1:1/0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if strings.Contains(r.String(), "secret") || strings.Contains(fmt.Sprint(r.Ping(context.Background())), "secret") {
		t.Fatalf("password shown: %s", r)
	}
}

// A call waits RedisTimeout for Redis unless the URL sets its own
// read_timeout, as go-redis reads it.
func TestRedisTimeoutFromTheURL(t *testing.T) {
	for url, want := range map[string]time.Duration{
		"redis://127.0.0.1:1/0":                   RedisTimeout,
		"redis://127.0.0.1:1/0?read_timeout=7s":   7 * time.Second,
		"redis://127.0.0.1:1/0?dial_timeout=50ms": RedisTimeout,
	} {
		r, err := NewRedis(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.timeout != want {
			t.Errorf("%s: timeout %v, want %v", url, r.timeout, want)
		}
		r.Close()
	}
}

// Requests queued while a batch is on its way go in batches of at most
// maxBatch, each request once.
func TestBatcherBoundsItsBatches(t *testing.T) {
	var b batcher
	release := make(chan struct{})
	var sizes []int
	var mu sync.Mutex
	flush := func(batch []*incrCall) {
		<-release
		mu.Lock()
		sizes = append(sizes, len(batch))
		mu.Unlock()
		for _, c := range batch {
			close(c.done)
		}
	}
	const requests = 3*maxBatch + 7
	calls := make([]*incrCall, requests)
	for i := range calls {
		calls[i] = &incrCall{done: make(chan struct{})}
		b.submit(calls[i], flush)
	}
	close(release)
	for _, c := range calls {
		<-c.done
	}
	total := 0
	for _, n := range sizes {
		if n > maxBatch {
			t.Fatalf("a batch of %d: %v", n, sizes)
		}
		total += n
	}
	if total != requests {
		t.Fatalf("%d requests flushed of %d: %v", total, requests, sizes)
	}
}

// Many requests at once, with different counters: each gets the counts
// of its own counters, and no count twice.
func TestRedisCountsABacklog(t *testing.T) {
	srv := redistest.Start(t)
	store := newStore(t, srv)
	const requests = 3*maxBatch + 7
	counts := make(chan int64, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			// Every other request has a counter of its own besides the
			// shared one, so the batches mix requests of one and two.
			hits := []Hit{{Key: "shared", TTL: time.Hour, Add: 1}}
			if i%2 == 1 {
				hits = append(hits, Hit{Key: "own-" + strconv.Itoa(i), TTL: time.Hour, Add: 1})
			}
			n, err := store.Incr(context.Background(), hits)
			if err != nil || len(n) != len(hits) || (len(n) == 2 && n[1] != 1) {
				t.Errorf("request %d: %v %v", i, n, err)
				return
			}
			counts <- n[0]
		})
	}
	wg.Wait()
	close(counts)
	seen := make(map[int64]bool, requests)
	for n := range counts {
		if seen[n] || n < 1 || n > requests {
			t.Fatalf("count %d given twice or out of range", n)
		}
		seen[n] = true
	}
	if len(seen) != requests {
		t.Fatalf("%d counts for %d requests", len(seen), requests)
	}
}
