package harness

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/steps"
)

// How a run ends when it is stopped: by its time (a *TimeoutError that names what it was still waiting for) or
// by a Ctrl-C (the context's error), with what it created in the target removed within cleanupTimeout, or at
// once after a second Ctrl-C (Options.Hurry).

// ErrTimeout is the cause of a run's context that ran out of time (context.WithTimeoutCause): Run then
// returns a *TimeoutError that says what the run was still waiting for.
var ErrTimeout = errors.New("the run's time ran out")

// TimeoutError is a run stopped by ErrTimeout: what it was still waiting for, and the scenarios under way.
type TimeoutError struct {
	Waiting, Running []string
}

func (e *TimeoutError) Error() string {
	var b strings.Builder
	b.WriteString("the run's time ran out")
	if len(e.Waiting) > 0 {
		b.WriteString("; it was still waiting for:\n  " + strings.Join(e.Waiting, "\n  "))
	}
	if len(e.Running) > 0 {
		b.WriteString("\nScenarios under way: " + strings.Join(e.Running, ", "))
	}
	if len(e.Waiting) == 0 && len(e.Running) == 0 {
		b.WriteString(" before any scenario ran")
	}
	return b.String()
}

func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// cleanupTimeout bounds the removal of what an interrupted run created in the target.
const cleanupTimeout = 30 * time.Second

// cleanupContext is the context of the removals at the end of a run: not ended by the run's own end (a
// Ctrl-C, the run's time), but within cleanupTimeout, and at once when hurry closes.
func cleanupContext(ctx context.Context, hurry <-chan struct{}) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	if hurry != nil {
		go func() {
			select {
			case <-hurry:
				cancel()
			case <-cctx.Done():
			}
		}()
	}
	return cctx, cancel
}

// underway are the scenarios started and not ended, by pickle id.
type underway struct {
	mu sync.Mutex
	m  map[string]string
}

func (u *underway) start(id, name string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.m[id] = name
}

func (u *underway) end(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.m, id)
}

func (u *underway) names() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := slices.Collect(maps.Values(u.m))
	slices.Sort(out)
	return out
}

// stopped is the error of a run that failed as its context ended: a *TimeoutError when its time ran out,
// naming what it was still waiting for; err as it is otherwise.
func stopped(ctx context.Context, suite *steps.Suite, running *underway, err error) error {
	if err == nil || ctx.Err() == nil || !errors.Is(context.Cause(ctx), ErrTimeout) {
		return err
	}
	return &TimeoutError{Waiting: suite.StillWaiting(), Running: running.names()}
}
