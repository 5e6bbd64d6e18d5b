package core

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/fortune-tck/fortune-tck/target"
)

// Run is what every scenario of a run shares, whatever its areas: the target, the origins it may be contacted
// at, the secrets that never leave the harness, the HTTP client, the run's context, the register of what
// scenarios created in the target (cleanup.go) and of what the run is waiting for.
type Run struct {
	// Target is the target under test; never nil (New makes an empty one).
	Target *target.Target
	// Origins are the only origins the harness contacts (origins.go).
	Origins *Origins
	// Secrets are masked by value wherever they would be shown (secrets.go).
	Secrets *Secrets
	// HTTP is the client every exchange goes through: redirects are answers to check, not to follow, and only
	// the origins of the policy are contacted.
	HTTP *http.Client

	cleanups cleanups
	waits    waits
	releases releases
	// ctx is the run's context (Preflight's): stopping the run (Ctrl-C) ends every wait of the steps.
	ctx context.Context
}

// NewRun returns the shared state of a run against a target (nil: a target that declares nothing).
func NewRun(t *target.Target) *Run {
	if t == nil {
		t = &target.Target{}
	}
	o := NewOrigins(t)
	return &Run{Target: t, Origins: o, Secrets: NewSecrets(t), HTTP: NewHTTPClient(o)}
}

// Services are the target's services; a nil one is not under test.
func (r *Run) Services() *target.Services { return &r.Target.Services }

// SetContext makes ctx the run's context: every scenario's context derives from it, so stopping it ends
// every wait.
func (r *Run) SetContext(ctx context.Context) { r.ctx = ctx }

// Context is the run's context, Background before SetContext.
func (r *Run) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// waits are the operations under way (a request, a git fetch, a page Chromium loads), for the message of a
// run that ran out of time.
type waits struct {
	mu   sync.Mutex
	next int
	m    map[int]waiting
}

type waiting struct {
	what  string
	since time.Time
}

// Waiting notes an operation under way until done is called: `defer r.Waiting("GET " + url)()`. An operation
// the end of the run's context stopped stays noted, for the message of a run that ran out of time.
func (r *Run) Waiting(what string) (done func()) {
	w := &r.waits
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[int]waiting{}
	}
	w.next++
	id := w.next
	w.m[id] = waiting{what: what, since: time.Now()}
	return func() {
		if r.Context().Err() != nil {
			return // what the run was waiting for when it was stopped stays named
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.m, id)
	}
}

// StillWaiting names the operations under way, the oldest first, each with how long it has waited.
func (r *Run) StillWaiting() []string {
	w := &r.waits
	w.mu.Lock()
	defer w.mu.Unlock()
	ops := make([]waiting, 0, len(w.m))
	for _, op := range w.m {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b waiting) int { return a.since.Compare(b.since) })
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = fmt.Sprintf("%s (for %s)", op.what, time.Since(op.since).Round(100*time.Millisecond))
	}
	return out
}

// releases are what the run holds on the tester's machine beyond its own memory (a browser process and its
// profile folder): released when it is no longer needed, and by Release at the end of the run whatever
// happened, a Ctrl-C included.
type releases struct {
	mu   sync.Mutex
	next int
	m    map[int]func()
}

// Hold registers a release; the func it returns releases it now (once) and forgets it.
func (r *Run) Hold(release func()) (releaseNow func()) {
	rs := &r.releases
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.m == nil {
		rs.m = map[int]func(){}
	}
	rs.next++
	id := rs.next
	rs.m[id] = release
	return func() {
		rs.mu.Lock()
		f := rs.m[id]
		delete(rs.m, id)
		rs.mu.Unlock()
		if f != nil {
			f()
		}
	}
}

// Release releases everything still held.
func (r *Run) Release() {
	rs := &r.releases
	rs.mu.Lock()
	held := rs.m
	rs.m = nil
	rs.mu.Unlock()
	for _, f := range held {
		f()
	}
}
