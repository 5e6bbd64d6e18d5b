package ratelimit

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// FailureLogInterval is the least time between two log lines about a
// failing Global store: a Redis outage must not flood the log.
const FailureLogInterval = 10 * time.Second

// Limiter decides whether requests pass.
type Limiter struct {
	global     Store
	service    *Service
	local      Store
	failClosed bool
	now        func() time.Time
	failures   failureLog
}

// Options configure a Limiter.
type Options struct {
	// Global keeps the Global counters: Redis to share them between
	// gateways; a Memory store when nil.
	Global Store
	// Service, when set, is asked about the Global rules, which are then
	// not counted in Global (Envoy Gateway's deployment).
	Service *Service
	// FailClosed refuses requests when Global or Service fails (default:
	// they pass).
	FailClosed bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives the failures of Global, throttled.
	Log *slog.Logger
}

// New returns a Limiter.
func New(o Options) *Limiter {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	global := o.Global
	if global == nil {
		global = NewMemory(now)
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	failing := "rate-limit store"
	if o.Service != nil {
		failing = "rate limit service"
	}
	return &Limiter{global: global, service: o.Service, local: NewMemory(now), failClosed: o.FailClosed, now: now,
		failures: failureLog{log: log, what: failing}}
}

// Outcome is what becomes of a request.
type Outcome int

const (
	// Pass: the request goes on to the upstream.
	Pass Outcome = iota
	// Limited: over the limit; 429.
	Limited
	// Failed: the Global store failed and the limiter fails closed; 500.
	Failed
)

// Decision is the outcome for one request and the headers to send.
type Decision struct {
	Outcome Outcome
	// Local is set when a Local rule refused the request.
	Local bool
	// limit, remaining and reset are the headers; limit is empty when no
	// rule applied.
	limit            string
	remaining, reset int64
	// added are the headers a rate limit service asks to add to the
	// response (response_headers_to_add), name and value.
	added [][2]string
}

// Applied tells whether some rule applied to the request (so the response
// carries rate-limit headers).
func (d Decision) Applied() bool { return d.limit != "" }

// SetHeaders sets the rate-limit headers on h when some rule applied, and
// those a rate limit service asked for.
func (d Decision) SetHeaders(h http.Header) {
	if d.limit != "" {
		h["X-Ratelimit-Limit"] = []string{d.limit}
		h["X-Ratelimit-Remaining"] = []string{strconv.FormatInt(d.remaining, 10)}
		h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(d.reset, 10)}
	}
	for _, kv := range d.added {
		h.Add(kv[0], kv[1])
	}
}

// Check counts r against the rules of its route (nil: no limits) and
// decides. client is the downstream address, for sourceCIDR selectors.
func (l *Limiter) Check(ctx context.Context, r *http.Request, client netip.Addr, rt *Route) Decision {
	if rt == nil {
		return Decision{}
	}
	now := l.now().Unix()
	var st statuses
	if len(rt.local) > 0 {
		counts, _ := st.count(ctx, l.local, rt.local, r, client, now)
		if st.add(counts, now) {
			return st.decision(Limited, true)
		}
	}
	if len(rt.global) > 0 && l.service != nil {
		return l.ask(ctx, r, client, rt, &st)
	}
	if len(rt.global) > 0 {
		counts, err := st.count(ctx, l.global, rt.global, r, client, now)
		switch {
		case err != nil && l.failClosed:
			l.failures.failed(err, "refusing requests (fail closed)")
			return Decision{Outcome: Failed}
		case err != nil:
			l.failures.failed(err, "letting requests pass (fail open)")
		default:
			l.failures.ok()
			if st.add(counts, now) {
				return st.decision(Limited, false)
			}
		}
	}
	return st.decision(Pass, false)
}

// Done counts the response cost of the Global rules of r's route that
// have one, once the response is complete (Envoy's apply_on_stream_done
// rate limits): the counters of the rules that apply to r grow by it,
// whatever became of r, and what they count is not looked at (it limits
// the requests that follow). A failing store or service only logs.
func (l *Limiter) Done(ctx context.Context, r *http.Request, client netip.Addr, rt *Route) {
	if rt == nil || !rt.responseCost {
		return
	}
	if l.service != nil {
		for _, c := range rt.serviceCalls(r, client, true) {
			if _, err := l.service.ask(ctx, c); err != nil {
				l.failures.failed(err, "a response cost is not counted")
			}
		}
		return
	}
	now := l.now().Unix()
	var hits []Hit
	for _, b := range rt.global {
		add, ok := b.cost(b.ResponseCost)
		if !ok || b.ResponseCost == nil {
			continue
		}
		w := b.window()
		start := now - now%w
		if key, ok := b.key(r, client, start); ok {
			hits = append(hits, Hit{Key: key, TTL: time.Duration(start+w-now) * time.Second, Add: add})
		}
	}
	if len(hits) == 0 {
		return
	}
	if _, err := l.global.Incr(ctx, hits); err != nil {
		l.failures.failed(err, "a response cost is not counted")
	}
}

// HasResponseCost tells whether some Global rule of the route counts a
// response cost, so that Done has something to do.
func (rt *Route) HasResponseCost() bool { return rt != nil && rt.responseCost }

// cost is what a request adds to the rule's counter for c (nil: 1). A cost
// from Metadata names the request's dynamic metadata, which no filter of
// this gateway writes: Envoy ignores a descriptor whose hits_addend format
// gives no number, so the rule does not apply (ok=false).
func (b bound) cost(c *manifest.Cost) (add int64, ok bool) {
	switch {
	case c == nil:
		return 1, true
	case c.From == manifest.CostFromNumber:
		return int64(c.Number), true
	default:
		return 0, false
	}
}

// statuses collects the applied rules' counts.
type statuses struct {
	hits    []Hit
	applied []bound
	items   []status
}

type status struct {
	requests, window, remaining, reset int64
	name                               string // the limit's name, from a rate limit service
}

// count increments the counters of the rules that apply to r.
func (s *statuses) count(ctx context.Context, store Store, rules []bound, r *http.Request, client netip.Addr, now int64) ([]int64, error) {
	s.hits, s.applied = s.hits[:0], s.applied[:0]
	for _, b := range rules {
		w := b.window()
		start := now - now%w
		add, ok := b.cost(b.RequestCost)
		if !ok {
			continue
		}
		key, ok := b.key(r, client, start)
		if !ok {
			continue
		}
		s.hits = append(s.hits, Hit{Key: key, TTL: time.Duration(start+w-now) * time.Second, Add: add})
		s.applied = append(s.applied, b)
	}
	if len(s.hits) == 0 {
		return nil, nil
	}
	return store.Incr(ctx, s.hits)
}

// add records the counts of the rules count applied, and tells whether one
// of them (not in shadow mode) is over its limit.
func (s *statuses) add(counts []int64, now int64) bool {
	over := false
	for i, b := range s.applied {
		w := b.window()
		st := status{requests: b.Requests, window: w, remaining: max(0, b.Requests-counts[i]), reset: w - now%w}
		s.items = append(s.items, st)
		if counts[i] > b.Requests && !b.Shadow {
			over = true
		}
	}
	return over
}

// decision builds the headers from the rule with the fewest requests
// remaining (the first of equals), as Envoy does.
func (s *statuses) decision(o Outcome, local bool) Decision {
	d := Decision{Outcome: o, Local: local}
	if len(s.items) == 0 {
		return d
	}
	least := s.items[0]
	for _, it := range s.items[1:] {
		if it.remaining < least.remaining {
			least = it
		}
	}
	b := strconv.AppendInt(make([]byte, 0, 32), least.requests, 10)
	for _, it := range s.items {
		if it.window == 0 { // a unit Envoy does not know: no quota policy
			continue
		}
		b = append(b, ", "...)
		b = strconv.AppendInt(b, it.requests, 10)
		b = append(b, ";w="...)
		b = strconv.AppendInt(b, it.window, 10)
		if it.name != "" {
			b = append(b, `;name="`...)
			b = append(b, it.name...)
			b = append(b, '"')
		}
	}
	d.limit, d.remaining, d.reset = string(b), least.remaining, least.reset
	if o == Limited {
		d.remaining = 0
	}
	return d
}

// failureLog logs Global store failures at most once per
// FailureLogInterval, with the number left out, and the recovery.
type failureLog struct {
	log        *slog.Logger
	what       string      // what fails, in the log lines
	failing    atomic.Bool // read without the lock on every request
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func (f *failureLog) failed(err error, action string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing.Store(true)
	if time.Since(f.last) < FailureLogInterval {
		f.suppressed++
		return
	}
	f.log.Error(f.what+" unavailable; "+action, "err", err, "failures_not_logged", f.suppressed)
	f.last, f.suppressed = time.Now(), 0
}

func (f *failureLog) ok() {
	if !f.failing.Load() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing.Load() {
		f.failing.Store(false)
		f.last = time.Time{}
		f.log.Info(f.what+" available again", "failures_not_logged", f.suppressed)
		f.suppressed = 0
	}
}
