package bus

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"

	"github.com/redis/go-redis/v9"

	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

func dial(t *testing.T, url string, log *slog.Logger) *Redis {
	t.Helper()
	b, err := DialRedis(context.Background(), url, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestRedisBus uses two connections, as two processes would.
func TestRedisBus(t *testing.T) {
	srv := redistest.Start(t)
	exercise(t, dial(t, srv.URL(), nil), dial(t, srv.URL(), nil))
}

func TestRedisBusIgnoresMalformedMessages(t *testing.T) {
	srv := redistest.Start(t)
	logs := &syncbuf.Buffer{}
	b := dial(t, srv.URL(), slog.New(slog.NewTextHandler(logs, nil)))
	c := make(collector, 8)
	if _, err := b.Subscribe(context.Background(), c.handle); err != nil {
		t.Fatal(err)
	}
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	for _, msg := range []string{"not json", `{"type":"RefreshRemoteApplicationEvent"}`, strings.Repeat("x", MaxMessageSize+1)} {
		if err := raw.Publish(context.Background(), Channel, msg).Err(); err != nil {
			t.Fatal(err)
		}
	}
	good := NewRefresh("a:1:x", "")
	if err := b.Publish(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	if got := c.next(t); got != good {
		t.Fatalf("got %+v", got)
	}
	if n := strings.Count(logs.String(), "ignoring a malformed bus message"); n != 3 {
		t.Fatalf("%d warnings, want 3:\n%s", n, logs)
	}
}

func TestRedisBusReconnects(t *testing.T) {
	srv := redistest.Start(t)
	b := dial(t, srv.URL(), nil)
	c := make(collector, 64)
	if _, err := b.Subscribe(context.Background(), c.handle); err != nil {
		t.Fatal(err)
	}
	srv.Restart()
	// Publish until the renewed subscription receives: events published
	// before it is back are lost, as publish/subscribe promises no more.
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		_ = b.Publish(context.Background(), NewRefresh("a:1:x", ""))
		select {
		case <-c:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("no event delivered within 15s of the Redis restart")
}

func TestDialRedisFailures(t *testing.T) {
	addr := "127.0.0.1:1" // nothing binds port 1: connections are refused
	if _, err := DialRedis(context.Background(), "redis://:s3cret@"+addr+"/0", nil); err == nil ||
		!strings.Contains(err.Error(), "cannot reach Redis at redis://:xxxxx@"+addr+"/0") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("unreachable: %v", err)
	}
	if _, err := DialRedis(context.Background(), "http://nope", nil); err == nil || !strings.Contains(err.Error(), "invalid Redis URL") {
		t.Fatalf("bad URL: %v", err)
	}
}

func TestRedisBusClose(t *testing.T) {
	srv := redistest.Start(t)
	b, err := DialRedis(context.Background(), srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(context.Background(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(context.Background(), func(Event) {}); err == nil {
		t.Fatal("subscribed on a closed bus")
	}
	if err := b.Publish(context.Background(), NewRefresh("a:1:x", "")); err == nil {
		t.Fatal("published on a closed bus")
	}
}
