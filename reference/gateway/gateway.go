package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/fortune-tck/fortune-tck/reference/gateway/accesslog"
	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

// Gateway serves the listeners of the Gateway manifests in a directory and
// follows the directory as it changes.
type Gateway struct {
	o         Options
	log       *slog.Logger
	config    atomic.Pointer[config]
	limiter   *ratelimit.Limiter
	redis     *ratelimit.Redis
	service   *ratelimit.Service // asked about Global rules instead of redis
	transport http.RoundTripper  // to the backends
	proxyLog  *log.Logger        // httputil.ReverseProxy's, at debug level
	access    *accesslog.Writer
	certs     certCache
	ports     *ports

	reloadMu sync.Mutex
	refused  [sha256.Size]byte // the directory content whose refusal was logged last, logged once
	read     []*fileRead       // each file as last read, sorted by path; nil before the first reading
	buildAll bool              // build every table anew, never Update one (tests compare the two)
	stop     context.CancelFunc
	watching sync.WaitGroup
	closed   sync.Once
}

// Start loads the directory, binds every listener and serves. A
// directory with any file that does not validate is refused at start with
// every problem named (manifest.Errors); nothing stays bound then.
func Start(o Options) (*Gateway, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	g := &Gateway{o: o, log: o.Logger}
	g.access = accesslog.New(o.AccessLog, o.AccessLogFlush, func(err error) { g.log.Warn("access log not written", "err", err) })
	g.transport = newTransport()
	g.proxyLog = slog.NewLogLogger(g.log.Handler(), slog.LevelDebug)
	g.ports = &ports{g: g, running: map[int]*portServer{}, errs: make(chan error, 1)}
	if err := g.startLimiter(); err != nil {
		return nil, err
	}
	w := g.watchDir()
	if err := g.Reload(); err != nil {
		w.close()
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		_ = g.ports.shutdown(ctx)
		g.closeRedis()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.stop = cancel
	g.watching.Go(func() { g.follow(ctx, w) })
	g.followServiceConfig(ctx)
	return g, nil
}

// startLimiter connects the Global counters to Redis when configured. A
// Redis that cannot be reached yet is only logged: requests fail open (or
// closed) until it answers, as they would if it went down later.
func (g *Gateway) startLimiter() error {
	opts := ratelimit.Options{FailClosed: g.o.FailClosed, Now: g.o.Now, Log: g.log}
	if g.o.RateLimitService != "" {
		s, err := ratelimit.NewService(g.o.RateLimitService, g.o.RateLimitServiceTimeout)
		if err != nil {
			return err
		}
		g.service, opts.Service = s, s
	}
	if g.o.RedisURL != "" {
		r, err := ratelimit.NewRedis(g.o.RedisURL, g.log)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), ratelimit.RedisTimeout)
		defer cancel()
		if err := r.Ping(ctx); err != nil {
			g.log.Warn("rate-limit store not reachable yet; Global limits fail "+failMode(g.o.FailClosed)+" until it is", "err", err)
		}
		g.redis, opts.Global = r, r
	}
	g.limiter = ratelimit.New(opts)
	return nil
}

func failMode(closed bool) string {
	if closed {
		return "closed"
	}
	return "open"
}

// Listeners are the ports served, in manifest port order.
func (g *Gateway) Listeners() []Listener { return g.ports.list() }

// Err reports a listener that stopped serving on its own.
func (g *Gateway) Err() <-chan error { return g.ports.errs }

// Shutdown stops following the directory and drains every listener:
// requests in flight finish unless ctx ends first; then the access-log
// lines that wait are written.
func (g *Gateway) Shutdown(ctx context.Context) error {
	var err error
	g.closed.Do(func() {
		g.stop()
		g.watching.Wait()
		err = g.ports.shutdown(ctx)
		g.closeRedis()
		if aerr := g.access.Close(); aerr != nil {
			err = errors.Join(err, fmt.Errorf("access log: %w", aerr))
		}
	})
	return err
}

// Close is Shutdown with drainTimeout.
func (g *Gateway) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	return g.Shutdown(ctx)
}

func (g *Gateway) closeRedis() {
	if g.redis != nil {
		_ = g.redis.Close()
	}
	if g.service != nil {
		_ = g.service.Close()
	}
}
