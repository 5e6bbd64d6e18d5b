package gateway

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// Defaults of Options.
const (
	DefaultHost     = "127.0.0.1"
	DefaultRescan   = 10 * time.Second
	DefaultDebounce = 200 * time.Millisecond
)

// Options configure a Gateway.
type Options struct {
	// Dir holds the manifests (*.yaml, *.yml). Required.
	Dir string
	// Host is the address every listener binds (default 127.0.0.1).
	Host string
	// PortOffset is added to every listener port, so that several
	// gateways with the same manifests can run on one host. Envoy Gateway
	// has no such setting: it is the reference's own.
	PortOffset int
	// FreePorts binds every listener on a free port instead (tests, and
	// `reference up` under test); Listeners tells where.
	FreePorts bool
	// RedisURL keeps Global counters in Redis, shared by every gateway
	// using it (redis://host:port/db). Empty: in this process's memory.
	RedisURL string
	// FailClosed refuses requests (500, flag RLSE) while Redis (or the
	// rate limit service) cannot be reached; by default they pass.
	FailClosed bool
	// RateLimitService (grpc://HOST:PORT) asks an envoy.service.ratelimit.v3
	// service, envoyproxy/ratelimit as Envoy Gateway deploys it, about the
	// Global rules instead of counting them; RedisURL must then be empty.
	RateLimitService string
	// RateLimitServiceConfig is the folder the service reads its
	// configuration from (its RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/config):
	// the gateway writes there what Envoy Gateway would generate from the
	// manifests, one file per domain, whenever the configuration in force
	// changes. Empty: the service is configured otherwise.
	RateLimitServiceConfig string
	// RateLimitServiceTimeout bounds one call to the service (default
	// ratelimit.ServiceTimeout).
	RateLimitServiceTimeout time.Duration
	// AccessLog receives one JSON line per request (default os.Stdout).
	AccessLog io.Writer
	// AccessLogFlush is how long a line may wait in memory to be written
	// with others, as Envoy's --file-flush-interval-msec; 0: each line is
	// written at once. Shutdown writes the lines that wait.
	AccessLogFlush time.Duration
	// Logger receives the gateway's own logs (default: discarded).
	Logger *slog.Logger
	// Rescan is how often the directory is read again in case a change was
	// not notified (default 10s); Debounce is how long to wait for a burst
	// of changes to end before reloading (default 200ms).
	Rescan, Debounce time.Duration
	// Now is the clock of rate-limit windows (default time.Now).
	Now func() time.Time
}

func (o *Options) defaults() error {
	if o.Dir == "" {
		return errors.New("gateway: a configuration directory is required")
	}
	if o.PortOffset < -65535 || o.PortOffset > 65535 {
		return fmt.Errorf("gateway: port offset %d out of range", o.PortOffset)
	}
	if o.RateLimitService != "" && o.RedisURL != "" {
		return errors.New("gateway: Global limits are counted in Redis or asked of a rate limit service, not both")
	}
	if o.RateLimitServiceConfig != "" && o.RateLimitService == "" {
		return errors.New("gateway: a rate limit service configuration folder needs a rate limit service")
	}
	if o.Host == "" {
		o.Host = DefaultHost
	}
	if o.AccessLog == nil {
		o.AccessLog = os.Stdout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Rescan <= 0 {
		o.Rescan = DefaultRescan
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}
