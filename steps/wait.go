package steps

import (
	"time"
)

// pollEvery is how often until asks again.
const pollEvery = 50 * time.Millisecond

// until is the one bounded wait of the steps: it asks done until it holds, an error stops it, and after limit
// it fails with what it waited for (and the last exchange, as evidence). Things a scenario waits for happen
// asynchronously in the target: a manifest taking effect, a log line being written, a bus delivering.
func (s *scenario) until(limit time.Duration, what string, done func() (bool, error)) error {
	for deadline := time.Now().Add(limit); ; time.Sleep(pollEvery) {
		ok, err := done()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return s.failf("waited %s for %s", limit, what)
		}
	}
}
