package bus

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// dialTimeout bounds the first contact with Redis at start.
const dialTimeout = 5 * time.Second

// Redis is the bus over Redis publish/subscribe on the channel Channel, for
// instances in separate processes. go-redis re-establishes a lost connection
// and renews the subscription on its own; events published while an instance
// is disconnected are lost for it, as with any publish/subscribe.
type Redis struct {
	client  *redis.Client
	log     *slog.Logger
	display string // the URL without its password
	mu      sync.Mutex
	subs    map[*redisSub]struct{}
	closed  bool
}

type redisSub struct {
	ps   *redis.PubSub
	done chan struct{}
	once sync.Once
}

// DialRedis connects to the Redis at rawURL (redis://[user:password@]host:port/db)
// and fails when it cannot be reached, so a wrong address is reported at
// start rather than as silently missing refreshes.
func DialRedis(ctx context.Context, rawURL string, log *slog.Logger) (*Redis, error) {
	display := redactURL(rawURL)
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("bus: invalid Redis URL %q: %w", display, err)
	}
	// Maintenance notifications are a Redis Enterprise feature; asking a
	// plain server for them only adds a failing handshake step.
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	redis.SetLogger(libraryLog{orDiscard(log)})
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("bus: cannot reach Redis at %s: %w", display, err)
	}
	return &Redis{client: client, log: orDiscard(log), display: display, subs: make(map[*redisSub]struct{})}, nil
}

// Publish sends e on the channel.
func (b *Redis) Publish(ctx context.Context, e Event) error {
	data, err := e.Encode()
	if err != nil {
		return err
	}
	if err := b.client.Publish(ctx, Channel, data).Err(); err != nil {
		return fmt.Errorf("bus: publishing to Redis at %s: %w", b.display, err)
	}
	return nil
}

// Subscribe subscribes to the channel and returns once Redis confirmed it.
func (b *Redis) Subscribe(ctx context.Context, h Handler) (func(), error) {
	ps := b.client.Subscribe(ctx, Channel)
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("bus: subscribing to %s at %s: %w", Channel, b.display, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		_ = ps.Close()
		return nil, ErrClosed
	}
	s := &redisSub{ps: ps, done: make(chan struct{})}
	b.subs[s] = struct{}{}
	go b.deliver(s, h)
	return func() { b.unsubscribe(s) }, nil
}

// deliver decodes each message; a malformed one is logged and skipped.
func (b *Redis) deliver(s *redisSub, h Handler) {
	defer close(s.done)
	for msg := range s.ps.Channel() {
		e, err := Decode([]byte(msg.Payload))
		if err != nil {
			b.log.Warn("ignoring a malformed bus message", "channel", msg.Channel, "err", err, "message", truncate(msg.Payload, 200))
			continue
		}
		h(e)
	}
}

func (b *Redis) unsubscribe(s *redisSub) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	s.once.Do(func() { _ = s.ps.Close() })
	<-s.done
}

// Close ends every subscription and closes the connection pool.
func (b *Redis) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	subs := make([]*redisSub, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		b.unsubscribe(s)
	}
	return b.client.Close()
}

// libraryLog sends go-redis's own messages (failed dials, dropped
// messages) to slog instead of the standard logger. go-redis has one logger
// per process, so the latest DialRedis decides where they go.
type libraryLog struct{ log *slog.Logger }

func (l libraryLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
