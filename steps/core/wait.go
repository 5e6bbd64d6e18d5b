package core

import (
	"context"
	"fmt"
	"time"
)

// pollEvery is how often until and never ask again.
const pollEvery = 50 * time.Millisecond

// Until is the bounded wait of the steps: it asks done until it holds, an error stops it, and after limit
// it fails with what it waited for (and the last exchange, as evidence). Things a scenario waits for happen
// asynchronously in the target: a manifest taking effect, a log line being written, a bus delivering.
func (s *Scenario) Until(limit time.Duration, what string, done func() (bool, error)) error {
	for deadline := time.Now().Add(limit); ; {
		ok, err := done()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return s.Failf("waited %s for %s", limit, what)
		}
		if err := s.Sleep(pollEvery); err != nil {
			return err
		}
	}
}

// Never is Until's converse, for what must not happen: it watches for limit, and the first evidence seen
// (a non-empty string) fails the step with what and the evidence. An absence can only be watched for a
// while: what the target does after its answer (an asynchronous log appender writing) shows up later.
func (s *Scenario) Never(limit time.Duration, what string, seen func() (string, error)) error {
	for deadline := time.Now().Add(limit); ; {
		evidence, err := seen()
		if err != nil {
			return err
		}
		if evidence != "" {
			return s.Failf("%s: %s", what, evidence)
		}
		if time.Now().After(deadline) {
			return nil
		}
		if err := s.Sleep(pollEvery); err != nil {
			return err
		}
	}
}

// Sleep waits for d, or until the scenario's context ends (the run is stopped, Ctrl-C): every wait of the
// steps goes through it, so that an interrupted run does not sit out a scenario's sleeps.
func (s *Scenario) Sleep(d time.Duration) error {
	return sleepContext(s.ctx, d)
}

// sleepContext waits for d, or until ctx is done.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the run was stopped: %w", ctx.Err())
	}
}
