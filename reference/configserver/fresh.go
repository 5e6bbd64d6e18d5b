package configserver

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// freshness brings the repository up to date before a request is answered:
// with an update (a fetch of a remote repository, or a reading of the refs
// of one on this machine) that starts after the request arrived, shared by
// the requests that arrived meanwhile. A failed update is not an error
// while the mirror holds a copy: the copy is served, with one warning per
// outage.
type freshness struct {
	display string // the URI as shown (password removed)
	log     *slog.Logger
	updates coalescer
	hasCopy func() bool // the mirror holds something to serve
	failing atomic.Bool // the last update failed
}

func newFreshness(display string, log *slog.Logger, update func() error, hasCopy func() bool) *freshness {
	return &freshness{display: display, log: log, updates: coalescer{fn: update}, hasCopy: hasCopy}
}

// sync waits for an update that starts after the call.
func (f *freshness) sync(ctx context.Context) error {
	err := f.updates.do(ctx)
	if err == nil {
		if f.failing.Swap(false) {
			f.log.Info("configuration repository reachable again", "uri", f.display)
		}
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if !f.hasCopy() {
		return &unavailableError{uri: f.display, err: err}
	}
	if !f.failing.Swap(true) {
		f.log.Warn("cannot fetch the configuration repository; serving the last fetched copy", "uri", f.display, "err", err)
	} else {
		f.log.Debug("fetch still failing; serving the last fetched copy", "uri", f.display, "err", err)
	}
	return nil
}
