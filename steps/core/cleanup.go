package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// The suite leaves a target as it found it: whatever a step creates there (a manifest, a user, a client, a
// group, a branch, a tag, a file on master) is registered with the way to remove it, removed when its scenario
// ends, passed or failed, and by Suite.Cleanup at the end of the run for what a scenario interrupted by Ctrl-C
// never got to remove, and for what the run's scenarios share (createdForRun). What a target gives no way to
// remove, or refused to remove, is named by LeftBehind, for the report.

// undo is one thing a scenario created in the target, and how to remove it (nil: the target has no way).
type undo struct {
	scenario string // the scenario's id ({app}); empty for what the run shares
	what     string
	remove   func(context.Context) error
}

// cleanups is the suite's register of what scenarios created and have not removed yet.
type cleanups struct {
	mu      sync.Mutex
	pending []undo
	left    []string
}

// Created registers something the scenario made in the target, with the way to remove it.
func (s *Scenario) Created(what string, remove func(context.Context) error) {
	s.Run.cleanups.add(undo{scenario: s.ID(), what: what, remove: remove})
}

// CreatedForRun registers something the steps made in the target for the whole run, which scenarios share
// (a group that was missing): Cleanup removes it at the end of the run, not a scenario's end.
func (r *Run) CreatedForRun(what string, remove func(context.Context) error) {
	r.cleanups.add(undo{what: what, remove: remove})
}

func (c *cleanups) add(u undo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, u)
}

// RemoveCreated removes what the scenario created, newest first; it is an After hook, and returns only its own
// errors.
func (s *Scenario) RemoveCreated(ctx context.Context) error {
	return s.Run.cleanups.run(ctx, func(u undo) bool { return u.scenario == s.ID() })
}

// Cleanup removes what scenarios created and did not remove (a run interrupted in the middle of one), and
// returns what went wrong.
func (r *Run) Cleanup(ctx context.Context) error {
	return r.cleanups.run(ctx, func(undo) bool { return true })
}

// LeftBehind names what the suite created in the target and could not remove, or had no way to.
func (r *Run) LeftBehind() []string {
	c := &r.cleanups
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.left)
}

func (c *cleanups) run(ctx context.Context, mine func(undo) bool) error {
	c.mu.Lock()
	var todo []undo
	c.pending = slices.DeleteFunc(c.pending, func(u undo) bool {
		if mine(u) {
			todo = append(todo, u)
			return true
		}
		return false
	})
	c.mu.Unlock()
	var errs []error
	for i := len(todo) - 1; i >= 0; i-- {
		u := todo[i]
		if u.remove == nil {
			c.leave(u.what + " (the target gives no way to remove it)")
			continue
		}
		if err := u.remove(context.WithoutCancel(ctx)); err != nil {
			c.leave(fmt.Sprintf("%s (removing it failed: %v)", u.what, err))
			errs = append(errs, fmt.Errorf("removing %s: %w", u.what, err))
		}
	}
	return errors.Join(errs...)
}

func (c *cleanups) leave(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.left = append(c.left, what)
}
