package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// RedisTimeout bounds one Redis call (dial, write, read) unless the
// request's context ends sooner.
const RedisTimeout = time.Second

// incrScript increments every counter of a request in one round trip and
// sets a counter's expiry when it is created. Being one script, it is
// atomic: exactly `requests` callers see a count within the limit, however
// many gateways share the Redis, and no counter is left without an expiry.
var incrScript = redis.NewScript(`
local counts = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, ARGV[i]) end
  counts[i] = n
end
return counts
`)

// Redis is a Store in Redis, shared by every gateway that uses it: the
// Global counters of envoyproxy/ratelimit.
type Redis struct {
	client  *redis.Client
	display string
}

// NewRedis returns a store for the Redis at rawURL
// (redis://[user:password@]host:port/db). It does not connect: a Redis that
// is down at start is handled like one that goes down later.
func NewRedis(rawURL string, log *slog.Logger) (*Redis, error) {
	display := redactURL(rawURL)
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("invalid Redis URL %q: %w", display, err)
	}
	// A retried INCR whose reply was lost would count a request twice.
	opts.MaxRetries = -1
	// While Redis is down every request must fail at once, not after
	// retried dials; go-redis probes in the background and reconnects.
	opts.DialerRetries = 1
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = RedisTimeout, RedisTimeout, RedisTimeout
	opts.PoolTimeout = RedisTimeout
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	// Maintenance notifications are a Redis Enterprise feature; asking a
	// plain server for them only adds a failing handshake step.
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if log != nil {
		redis.SetLogger(libraryLog{log})
	}
	return &Redis{client: redis.NewClient(opts), display: display}, nil
}

// CheckRedisURL tells whether rawURL is a Redis URL NewRedis accepts.
func CheckRedisURL(rawURL string) error {
	if _, err := redis.ParseURL(rawURL); err != nil {
		return fmt.Errorf("invalid Redis URL %q: %w", redactURL(rawURL), err)
	}
	return nil
}

// Incr runs incrScript: one round trip (two the first time after Redis
// restarted, when the script must be loaded again).
func (r *Redis) Incr(ctx context.Context, hits []Hit) ([]int64, error) {
	keys := make([]string, len(hits))
	ttls := make([]any, len(hits))
	for i, h := range hits {
		keys[i] = h.Key
		// A second of slack keeps a counter alive to the end of its
		// window even if the Redis clock runs a little ahead.
		ttls[i] = int64(h.TTL/time.Second) + 1
	}
	res, err := incrScript.Run(ctx, r.client, keys, ttls...).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("rate-limit counters in Redis at %s: %w", r.display, err)
	}
	if len(res) != len(hits) {
		return nil, fmt.Errorf("rate-limit counters in Redis at %s: %d counts for %d counters", r.display, len(res), len(hits))
	}
	return res, nil
}

// Ping checks that Redis answers.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("Redis at %s: %w", r.display, err)
	}
	return nil
}

// Close closes the connection pool.
func (r *Redis) Close() error { return r.client.Close() }

// String is the Redis URL without its password.
func (r *Redis) String() string { return r.display }

// libraryLog sends go-redis's own messages to slog. go-redis has one
// logger per process, so the latest NewRedis decides where they go.
type libraryLog struct{ log *slog.Logger }

func (l libraryLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
