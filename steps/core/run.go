package core

import (
	"context"
	"net/http"
	"time"

	"github.com/fortune-tck/fortune-tck/target"
)

// Run is what every scenario of a run shares, whatever its areas: the target, the HTTP client, the run's
// context and the register of what scenarios created in the target (cleanup.go).
type Run struct {
	// Target is the target under test; never nil (New makes an empty one).
	Target *target.Target
	// HTTP is the client every exchange goes through: redirects are answers to check, not to follow.
	HTTP *http.Client

	cleanups cleanups
	// ctx is the run's context (Preflight's): stopping the run (Ctrl-C) ends every wait of the steps.
	ctx context.Context
}

// NewRun returns the shared state of a run against a target (nil: a target that declares nothing).
func NewRun(t *target.Target) *Run {
	if t == nil {
		t = &target.Target{}
	}
	return &Run{Target: t, HTTP: &http.Client{
		Timeout: 20 * time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
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
