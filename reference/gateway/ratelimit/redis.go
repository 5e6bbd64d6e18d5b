package ratelimit

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

// RedisTimeout bounds one Redis call (dial, write, read) unless the
// request's context ends sooner, or the Redis URL sets its own timeouts
// (dial_timeout, read_timeout, write_timeout, pool_timeout, as go-redis
// reads them: redis://host:6379/0?read_timeout=5s).
const RedisTimeout = time.Second

// incrScript increments the counters of a batch of requests in one round
// trip and sets a counter's expiry when it is created: KEYS are the
// counters, ARGV their expiries in seconds and what each adds (the rule's
// cost), in pairs, and the counts come back in their order. Being one script, it is atomic: exactly `requests` callers
// see a count within the limit, however many gateways share the Redis, and
// no counter is left without an expiry.
var incrScript = redis.NewScript(`
local counts = {}
for i, key in ipairs(KEYS) do
  local add = tonumber(ARGV[2*i])
  local n = redis.call('INCRBY', key, add)
  if n == add then redis.call('EXPIRE', key, ARGV[2*i-1]) end
  counts[i] = n
end
return counts
`)

// Redis is a Store in Redis, shared by every gateway that uses it: the
// Global counters of envoyproxy/ratelimit.
type Redis struct {
	client  *redis.Client
	display string
	timeout time.Duration // of one script call: the URL's read_timeout, or RedisTimeout
	batch   batcher
}

// NewRedis returns a store for the Redis at rawURL
// (redis://[user:password@]host:port/db[?read_timeout=...]). It does not
// connect: a Redis that is down at start is handled like one that goes down
// later.
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
	for _, d := range []*time.Duration{&opts.DialTimeout, &opts.ReadTimeout, &opts.WriteTimeout, &opts.PoolTimeout} {
		if *d <= 0 {
			*d = RedisTimeout
		}
	}
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	// Maintenance notifications are a Redis Enterprise feature; asking a
	// plain server for them only adds a failing handshake step.
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if log != nil {
		redis.SetLogger(libraryLog{log})
	}
	return &Redis{client: redis.NewClient(opts), display: display, timeout: opts.ReadTimeout}, nil
}

// CheckRedisURL tells whether rawURL is a Redis URL NewRedis accepts.
func CheckRedisURL(rawURL string) error {
	if _, err := redis.ParseURL(rawURL); err != nil {
		return fmt.Errorf("invalid Redis URL %q: %w", redactURL(rawURL), err)
	}
	return nil
}

// Incr counts the hits of one request. Requests that arrive while another
// batch is on its way to Redis are counted together, in one call of
// incrScript: one round trip and one script run for many requests (a
// script call per request cost Redis twice the time), and the batch as a
// whole atomic, so admission stays exact across gateways. A caller whose
// context ends stops waiting; its hits may still be counted, as they may
// be when a reply is lost.
func (r *Redis) Incr(ctx context.Context, hits []Hit) ([]int64, error) {
	c := &incrCall{keys: make([]string, len(hits)), ttls: make([]any, 2*len(hits)), done: make(chan struct{})}
	for i, h := range hits {
		c.keys[i] = h.Key
		// A second of slack keeps a counter alive to the end of its
		// window even if the Redis clock runs a little ahead.
		c.ttls[2*i], c.ttls[2*i+1] = int64(h.TTL/time.Second)+1, h.Add
	}
	r.batch.submit(c, r.flush)
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.err != nil {
		return nil, fmt.Errorf("rate-limit counters in Redis at %s: %w", r.display, c.err)
	}
	return c.counts, nil
}

// incrCall is one request's script call, answered by its batch.
type incrCall struct {
	keys   []string
	ttls   []any // expiry and addend of each key
	counts []int64
	err    error
	done   chan struct{}
}

// flush counts a batch in one script call (one round trip; two the first
// time after Redis restarted, when the script must be loaded again: a call
// refused with NOSCRIPT did not run, so sending it again counts nothing
// twice). A failure fails every request of the batch.
func (r *Redis) flush(batch []*incrCall) {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	var keys []string
	var ttls []any
	for _, c := range batch {
		keys, ttls = append(keys, c.keys...), append(ttls, c.ttls...)
	}
	counts, err := incrScript.Run(ctx, r.client, keys, ttls...).Int64Slice()
	if err == nil && len(counts) != len(keys) {
		err = fmt.Errorf("%d counts for %d counters", len(counts), len(keys))
	}
	for _, c := range batch {
		if err != nil {
			c.err = err
		} else {
			c.counts, counts = counts[:len(c.keys)], counts[len(c.keys):]
		}
		close(c.done)
	}
}

// maxBatch bounds the requests counted in one script run: Redis runs
// nothing else meanwhile, and 256 requests' counters take it well under a
// millisecond.
const maxBatch = 256

// batcher queues calls while a batch is in flight; one goroutine sends
// the queue, batch after batch of at most maxBatch, until it is empty.
type batcher struct {
	mu       sync.Mutex
	queue    []*incrCall
	flushing bool
}

func (b *batcher) submit(c *incrCall, flush func([]*incrCall)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, c)
	if !b.flushing {
		b.flushing = true
		go b.run(flush)
	}
}

func (b *batcher) run(flush func([]*incrCall)) {
	for {
		b.mu.Lock()
		n := min(len(b.queue), maxBatch)
		if n == 0 {
			b.queue, b.flushing = nil, false
			b.mu.Unlock()
			return
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		flush(batch)
	}
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
