package authserver

import (
	"maps"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/ory/fosite"
)

// tokenTable holds one kind of fosite request (codes, PKCE or OpenID
// Connect requests, access or refresh tokens) by signature, with an index by
// request id: revocation works on every token of one grant.
type tokenTable struct {
	kind   fosite.TokenType // whose expiry lets an entry be dropped
	mu     sync.Mutex
	bySig  map[string]*tokenEntry
	byReq  map[string]map[string]struct{}
	writes int // since the last sweep
}

// tokenEntry is a stored request. Inactive means used (a code), rotated or
// revoked (a token): fosite and check_token tell these apart from unknown.
type tokenEntry struct {
	req     *fosite.Request
	active  bool
	expires time.Time
}

// minSweepWrites is how many writes pass between sweeps of expired entries
// at least; a sweep is also put off until the table grew by half, so its
// cost per write stays constant.
const minSweepWrites = 1024

func newTokenTable(kind fosite.TokenType) *tokenTable {
	return &tokenTable{kind: kind, bySig: make(map[string]*tokenEntry), byReq: make(map[string]map[string]struct{})}
}

// put stores a snapshot of r, so later changes to r do not reach the store.
func (t *tokenTable) put(sig string, r fosite.Requester) {
	req := snapshot(r)
	e := &tokenEntry{req: req, active: true}
	if req.Session != nil {
		e.expires = req.Session.GetExpiresAt(t.kind)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.remove(sig)
	t.bySig[sig] = e
	if t.byReq[req.ID] == nil {
		t.byReq[req.ID] = make(map[string]struct{})
	}
	t.byReq[req.ID][sig] = struct{}{}
	if t.writes++; t.writes >= max(minSweepWrites, len(t.bySig)/2) {
		t.sweep(time.Now())
	}
}

// get returns a copy of the stored request: callers (fosite) change the
// requests they get.
func (t *tokenTable) get(sig string) (req *fosite.Request, active, ok bool) {
	t.mu.Lock()
	e, ok := t.bySig[sig]
	if ok {
		active = e.active
	}
	t.mu.Unlock()
	if !ok {
		return nil, false, false
	}
	return snapshot(e.req), active, true // e.req itself never changes
}

// state reports whether sig is known and still active, without a copy.
func (t *tokenTable) state(sig string) (found, active bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.bySig[sig]
	return ok, ok && e.active
}

// deactivate marks sig used; it reports whether sig was known and active.
func (t *tokenTable) deactivate(sig string) (found, wasActive bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.bySig[sig]
	if !ok {
		return false, false
	}
	wasActive, e.active = e.active, false
	return true, wasActive
}

// deactivateRequest marks every entry of one grant inactive.
func (t *tokenTable) deactivateRequest(requestID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for sig := range t.byReq[requestID] {
		t.bySig[sig].active = false
	}
}

func (t *tokenTable) delete(sig string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.remove(sig)
}

// remove deletes sig from both maps; t.mu is held.
func (t *tokenTable) remove(sig string) {
	e, ok := t.bySig[sig]
	if !ok {
		return
	}
	delete(t.bySig, sig)
	if sigs := t.byReq[e.req.ID]; sigs != nil {
		delete(sigs, sig)
		if len(sigs) == 0 {
			delete(t.byReq, e.req.ID)
		}
	}
}

// sweep drops expired entries; t.mu is held. An expired code or token is
// refused by its expiry before the store is asked, so forgetting it changes
// no answer.
func (t *tokenTable) sweep(now time.Time) {
	t.writes = 0
	for sig, e := range t.bySig {
		if !e.expires.IsZero() && e.expires.Before(now) {
			t.remove(sig)
		}
	}
}

func (t *tokenTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.bySig)
}

// snapshot copies a request deeply enough that neither side sees the
// other's later changes: slices, form and session are copied; the client is
// immutable and shared.
func snapshot(r fosite.Requester) *fosite.Request {
	var sess fosite.Session
	if s := r.GetSession(); s != nil {
		sess = s.Clone()
	}
	return &fosite.Request{
		ID:                r.GetID(),
		RequestedAt:       r.GetRequestedAt(),
		Client:            r.GetClient(),
		RequestedScope:    slices.Clone(r.GetRequestedScopes()),
		GrantedScope:      slices.Clone(r.GetGrantedScopes()),
		Form:              cloneValues(r.GetRequestForm()),
		Session:           sess,
		RequestedAudience: slices.Clone(r.GetRequestedAudience()),
		GrantedAudience:   slices.Clone(r.GetGrantedAudience()),
	}
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range maps.All(v) {
		c[k] = slices.Clone(vs)
	}
	return c
}
