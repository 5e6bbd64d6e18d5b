package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Store keeps counters.
type Store interface {
	// Incr adds each hit's Add to its counter and returns the new counts,
	// in order.
	// A counter starts at zero and may be forgotten once its TTL has
	// passed. One call is one round trip to a remote store.
	Incr(ctx context.Context, hits []Hit) ([]int64, error)
}

// Hit is one counter to increment.
type Hit struct {
	Key string
	// TTL is the time left in the counter's window, by the limiter's
	// clock: the counter is not needed after it.
	TTL time.Duration
	// Add is what the hit adds: the rule's cost, 1 by default; 0 only
	// reads the counter (and starts it).
	Add int64
}

// sweepInterval is how often Memory forgets counters whose window is over.
const sweepInterval = 10 * time.Second

// Memory is a Store in process memory: Local rules always, Global rules
// when no Redis is configured.
type Memory struct {
	now     func() time.Time
	mu      sync.Mutex
	counts  map[string]*memCounter
	sweepAt time.Time
}

type memCounter struct {
	n   int64
	end time.Time
}

// NewMemory returns an empty Memory store; now is the clock (time.Now when
// nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, counts: map[string]*memCounter{}}
}

// Incr never fails.
func (m *Memory) Incr(_ context.Context, hits []Hit) ([]int64, error) {
	now := m.now()
	out := make([]int64, len(hits))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	for i, h := range hits {
		c := m.counts[h.Key]
		if c == nil || !now.Before(c.end) {
			c = &memCounter{end: now.Add(h.TTL)}
			m.counts[h.Key] = c
		}
		c.n += h.Add
		out[i] = c.n
	}
	return out, nil
}

// sweep forgets counters whose window is over; keys name their window, so
// they would never be used again.
func (m *Memory) sweep(now time.Time) {
	if now.Before(m.sweepAt) {
		return
	}
	m.sweepAt = now.Add(sweepInterval)
	for k, c := range m.counts {
		if !now.Before(c.end) {
			delete(m.counts, k)
		}
	}
}

// Len is the number of counters held, for tests.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.counts)
}
