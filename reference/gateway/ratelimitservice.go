package gateway

import (
	"context"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

// serviceConfigPoll is how often the configuration in force is compared
// with the one last written to the rate limit service's folder. Reload
// (config.go) knows nothing of the service; comparing one pointer is free,
// and the service takes longer than this to reload a file anyway.
const serviceConfigPoll = 100 * time.Millisecond

// followServiceConfig writes the rate limit service's configuration for
// the configuration in force now, then whenever another comes into force,
// until ctx ends; nothing without Options.RateLimitServiceConfig.
func (g *Gateway) followServiceConfig(ctx context.Context) {
	if g.o.RateLimitServiceConfig == "" {
		return
	}
	w := &serviceConfigWriter{g: g}
	w.write()
	g.watching.Go(func() {
		tick := time.NewTicker(serviceConfigPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				w.write()
			}
		}
	})
}

// serviceConfigWriter remembers what it wrote last.
type serviceConfigWriter struct {
	g       *Gateway
	written *config // the configuration whose files are in the folder
	failed  string  // the last error logged, logged once
}

// write writes the files of the configuration in force when they were not
// written yet; a failure is retried at the next poll and logged once.
func (w *serviceConfigWriter) write() {
	cfg := w.g.config.Load()
	if cfg == nil || cfg == w.written {
		return
	}
	dir := w.g.o.RateLimitServiceConfig
	files, warnings := ratelimit.ServiceConfig(cfg.table.Limits())
	changed, err := ratelimit.WriteServiceConfig(dir, files)
	if err != nil {
		if err.Error() != w.failed {
			w.failed = err.Error()
			w.g.log.Error("rate limit service configuration not written; retrying", "dir", dir, "err", err)
		}
		return
	}
	w.written, w.failed = cfg, ""
	for _, msg := range warnings {
		w.g.log.Warn(msg)
	}
	if changed {
		w.g.log.Info("rate limit service configuration written", "dir", dir, "domains", len(files))
	}
}
