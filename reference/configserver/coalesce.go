package configserver

import (
	"context"
	"runtime"
	"sync"
)

// coalescer runs fn on behalf of many callers with at most one run in flight.
// Every caller is answered by a run that started after the caller arrived:
// callers that arrive while a run is in flight share the next run. Answering
// from a run that began earlier could miss a commit pushed just before the
// request.
type coalescer struct {
	fn func() error

	mu      sync.Mutex
	running *round // the run in flight, if any
	pending *round // the next run, not yet started; callers join it
}

type round struct {
	done chan struct{}
	err  error
}

// do waits for a run of fn that starts after the call and returns its error,
// or ctx's error if ctx ends first (the run still completes for the others).
func (c *coalescer) do(ctx context.Context) error {
	c.mu.Lock()
	r := c.pending
	if r == nil {
		r = &round{done: make(chan struct{})}
		c.pending = r
		go c.lead(r, c.running)
	}
	c.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lead waits for the previous run to finish, then runs r. It does not depend
// on any caller's context: other callers may be waiting for the same run.
// Before r starts it yields once, so that callers that are ready to run
// (under load, requests already read) join r rather than each start the
// next run: the run starts later, still after all of them arrived. Without
// it a run served one or two requests under load.
func (c *coalescer) lead(r, prev *round) {
	if prev != nil {
		<-prev.done
	}
	runtime.Gosched()
	c.mu.Lock()
	c.pending, c.running = nil, r
	c.mu.Unlock()
	r.err = c.fn()
	c.mu.Lock()
	c.running = nil
	c.mu.Unlock()
	close(r.done)
}
