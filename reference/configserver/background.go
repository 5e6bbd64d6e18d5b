package configserver

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

const retryAfter = 10 * time.Second // from a failed background fetch to the next

// background keeps the mirror of a repository on this machine, the copy
// served when the repository cannot be read, up to date with go-git
// fetches (fetch.go) run in the background, never on a request's path:
// one at a time, the changes seen while one runs sharing the next
// (coalescer), each after a pause as long as the last took. A failed fetch
// is tried again after retryAfter, with one warning per outage.
//
// Fetching before each answer instead, as for a remote repository, took
// 71-353 ms (median 111 ms) through git-upload-pack for a one-file commit
// at 10,000 files x 1,000 commits, against a budget of 50 ms.
type background struct {
	display string
	log     *slog.Logger
	fetches coalescer
	stop    context.CancelFunc
	mu      sync.Mutex
	closed  bool           // under mu
	runs    sync.WaitGroup // the fetches started or awaited; close waits for them
	failing atomic.Bool
	retry   atomic.Bool // a retry is scheduled
}

// newBackground returns an updater running fetch, and the context close cancels.
func newBackground(display string, log *slog.Logger, fetch func() error) (*background, context.Context) {
	ctx, stop := context.WithCancel(context.Background())
	var took time.Duration // by the last fetch; coalescer runs one at a time
	paced := func() error {
		select { // as long as the last fetch took: fetches take half a CPU at most
		case <-time.After(took):
		case <-ctx.Done():
		}
		t0 := time.Now()
		err := fetch()
		took = time.Since(t0)
		return err
	}
	return &background{display: display, log: log, fetches: coalescer{fn: paced}, stop: stop}, ctx
}

// start asks for a fetch that starts after the call, and returns at once.
func (b *background) start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.runs.Add(1)
	go func() {
		defer b.runs.Done()
		b.report(b.fetches.do(context.Background()))
	}()
}

func (b *background) report(err error) {
	if err == nil {
		if b.failing.Swap(false) {
			b.log.Info("the local copy of the configuration repository is up to date again", "uri", b.display)
		}
		return
	}
	if !b.failing.Swap(true) {
		b.log.Warn("cannot fetch the configuration repository into its local copy, served when the repository cannot be read; trying again",
			"uri", b.display, "err", err, "every", retryAfter)
	}
	if !b.retry.Swap(true) {
		time.AfterFunc(retryAfter, func() {
			b.retry.Store(false)
			b.start()
		})
	}
}

// close cancels the fetch under way, if any, waits for it, and starts no
// other.
func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.stop()
	b.runs.Wait()
}
