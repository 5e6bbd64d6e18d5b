package authserver

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// tokenTable holds one kind of fosite request (codes, PKCE or OpenID
// Connect requests, access or refresh tokens) by signature in bucket, with
// an index by request id in bucket+"-req" (request id NUL signature):
// revocation works on every token of one grant.
type tokenTable struct {
	s      *store
	bucket string
	index  string
	kind   fosite.TokenType // whose expiry lets an entry be dropped
	writes atomic.Int64     // since the last sweep, in this process
	states *decodeMemo[entryState]
}

// entryState is the part of a tokenEntry that state reads.
type entryState struct {
	Active bool `json:"active"`
}

// tokenEntry is a stored request. Inactive means used (a code), rotated or
// revoked (a token): fosite and check_token tell these apart from unknown.
type tokenEntry struct {
	Req     storedRequest `json:"req"`
	Active  bool          `json:"active"`
	Expires time.Time     `json:"expires,omitzero"`
}

// storedRequest is a fosite request as stored: the client by id (and the
// scopes view fosite saw, see fositeClient), the session of this server.
type storedRequest struct {
	ID                string     `json:"id"`
	RequestedAt       time.Time  `json:"requestedAt"`
	ClientID          string     `json:"clientID"`
	ClientScopes      []string   `json:"clientScopes"`
	RequestedScope    []string   `json:"requestedScope"`
	GrantedScope      []string   `json:"grantedScope"`
	Form              url.Values `json:"form,omitempty"`
	Session           *session   `json:"session"`
	RequestedAudience []string   `json:"requestedAudience,omitempty"`
	GrantedAudience   []string   `json:"grantedAudience,omitempty"`
}

// minSweepWrites is how many writes of one process pass between sweeps of
// expired entries.
const minSweepWrites = 1024

func newTokenTable(s *store, bucket string, kind fosite.TokenType) *tokenTable {
	return &tokenTable{s: s, bucket: bucket, index: bucket + "-req", kind: kind, states: newDecodeMemo[entryState]()}
}

var errForeignRequest = errors.New("authserver: a request without a session or client of this server")

func toStored(r fosite.Requester) (storedRequest, error) {
	sess, ok := sessionOf(r)
	if !ok {
		return storedRequest{}, errForeignRequest
	}
	sr := storedRequest{
		ID: r.GetID(), RequestedAt: r.GetRequestedAt(),
		RequestedScope: r.GetRequestedScopes(), GrantedScope: r.GetGrantedScopes(),
		Form: r.GetRequestForm(), Session: sess,
		RequestedAudience: r.GetRequestedAudience(), GrantedAudience: r.GetGrantedAudience(),
	}
	switch c := r.GetClient().(type) {
	case *fositeClient:
		sr.ClientID, sr.ClientScopes = c.ID, c.scopes
	case nil:
	default:
		return storedRequest{}, errForeignRequest
	}
	return sr, nil
}

// toRequest rebuilds the fosite request, with the client as it is now.
func (t *tokenTable) toRequest(sr storedRequest) (*fosite.Request, bool) {
	req := &fosite.Request{
		ID: sr.ID, RequestedAt: sr.RequestedAt,
		RequestedScope: sr.RequestedScope, GrantedScope: sr.GrantedScope,
		Form: sr.Form, RequestedAudience: sr.RequestedAudience, GrantedAudience: sr.GrantedAudience,
	}
	if req.Form == nil {
		req.Form = url.Values{}
	}
	if sr.Session != nil {
		req.Session = sr.Session
	}
	if sr.ClientID != "" {
		c, ok := t.s.client(sr.ClientID)
		if !ok {
			return nil, false
		}
		req.Client = &fositeClient{c, sr.ClientScopes}
	}
	return req, true
}

func sigKey(requestID, sig string) string { return requestID + "\x00" + sig }

// put stores r.
func (t *tokenTable) put(sig string, r fosite.Requester) error {
	sr, err := toStored(r)
	if err != nil {
		return err
	}
	e := tokenEntry{Req: sr, Active: true}
	if sr.Session != nil {
		e.Expires = sr.Session.GetExpiresAt(t.kind)
	}
	err = t.s.update(func(tx kv.Tx) error {
		if err := t.remove(tx, sig); err != nil {
			return err
		}
		if err := putJSON(tx, t.bucket, sig, e); err != nil {
			return err
		}
		return tx.Put(t.index, sigKey(sr.ID, sig), []byte{1})
	})
	if err == nil && t.writes.Add(1) >= minSweepWrites {
		t.writes.Store(0)
		if serr := t.sweep(time.Now()); serr != nil {
			t.s.log.Warn("sweeping expired tokens failed", "table", t.bucket, "err", serr)
		}
	}
	return err
}

// get returns the stored request.
func (t *tokenTable) get(sig string) (req *fosite.Request, active, ok bool, err error) {
	var e tokenEntry
	err = t.s.view(func(tx kv.Tx) (err error) {
		ok, err = getJSON(tx, t.bucket, sig, &e)
		return err
	})
	if err != nil || !ok {
		return nil, false, false, err
	}
	req, ok = t.toRequest(e.Req)
	return req, e.Active, ok, nil
}

// state reports whether sig is known and still active.
func (t *tokenTable) state(sig string) (found, active bool, err error) {
	err = t.s.view(func(tx kv.Tx) error {
		e, ok, err := t.states.get(tx, t.bucket, sig)
		found, active = ok, ok && e.Active
		return err
	})
	return found, active, err
}

// deactivate marks sig used; it reports whether sig was known and active.
func (t *tokenTable) deactivate(sig string) (found, wasActive bool, err error) {
	err = t.s.update(func(tx kv.Tx) error {
		var e tokenEntry
		var err error
		if found, err = getJSON(tx, t.bucket, sig, &e); err != nil || !found {
			return err
		}
		wasActive, e.Active = e.Active, false
		return putJSON(tx, t.bucket, sig, e)
	})
	return found, wasActive, err
}

// deactivateRequest marks every entry of one grant inactive.
func (t *tokenTable) deactivateRequest(requestID string) error {
	return t.s.update(func(tx kv.Tx) error {
		var sigs []string
		prefix := sigKey(requestID, "")
		if err := tx.Scan(t.index, prefix, func(k string, _ []byte) error {
			sigs = append(sigs, k[len(prefix):])
			return nil
		}); err != nil {
			return err
		}
		for _, sig := range sigs {
			var e tokenEntry
			ok, err := getJSON(tx, t.bucket, sig, &e)
			if err != nil {
				return err
			}
			if ok && e.Active {
				e.Active = false
				if err := putJSON(tx, t.bucket, sig, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (t *tokenTable) delete(sig string) error {
	return t.s.update(func(tx kv.Tx) error { return t.remove(tx, sig) })
}

// remove deletes sig and its index entry.
func (t *tokenTable) remove(tx kv.Tx, sig string) error {
	var e struct {
		Req struct {
			ID string `json:"id"`
		} `json:"req"`
	}
	ok, err := getJSON(tx, t.bucket, sig, &e)
	if err != nil || !ok {
		return err
	}
	if err := tx.Delete(t.index, sigKey(e.Req.ID, sig)); err != nil {
		return err
	}
	return tx.Delete(t.bucket, sig)
}

// sweep drops expired entries. An expired code or token is refused by its
// expiry before the store is asked, so forgetting it changes no answer.
func (t *tokenTable) sweep(now time.Time) error {
	return t.s.update(func(tx kv.Tx) error {
		var expired []string
		if err := tx.Scan(t.bucket, "", func(sig string, v []byte) error {
			var e struct {
				Expires time.Time `json:"expires"`
			}
			if json.Unmarshal(v, &e) == nil && !e.Expires.IsZero() && e.Expires.Before(now) {
				expired = append(expired, sig)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, sig := range expired {
			if err := t.remove(tx, sig); err != nil {
				return err
			}
		}
		return nil
	})
}

func (t *tokenTable) size() int {
	n := 0
	_ = t.s.view(func(tx kv.Tx) error {
		return tx.Scan(t.bucket, "", func(string, []byte) error { n++; return nil })
	})
	return n
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = slices.Clone(vs)
	}
	return c
}
