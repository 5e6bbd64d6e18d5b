package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// tokenTable holds one kind of fosite request (codes, PKCE or OpenID
// Connect requests, access or refresh tokens) by key in bucket, with two
// indexes, both kept in the same transaction as the entry:
//
//   - bucket+"-req": request id NUL key. Revocation works on every token of
//     one grant.
//   - bucket+"-exp": the expiry (8 bytes, big-endian Unix nanoseconds) then
//     the key, with the request id in the value (expiryValue). Expired
//     entries sort first, so a sweep reads exactly the ones it deletes, a
//     batch at a time, however many live ones there are (bbolt's B+tree,
//     PostgreSQL's primary key index, Memory's ordered keys).
//
// The key is the token's signature, except for access tokens (lean): their
// signature is 342 characters (RS256), so they are stored by its SHA-256,
// with only what introspection, revocation and check_token read
// (accessRequest); the token itself carries its claims.
type tokenTable struct {
	s        *Store
	bucket   string
	index    string
	expiry   string
	kind     fosite.TokenType // whose expiry lets an entry be dropped
	lean     bool
	writes   atomic.Int64 // in this process: every minSweepWrites-th one sweeps
	backlog  atomic.Bool  // the last sweep left expired entries: the next write sweeps
	sweeping atomic.Bool  // one sweep at a time in this process
	states   *decodeMemo[entryState]
}

// entryState is the part of a tokenEntry that state reads.
type entryState struct {
	Active bool `json:"active"`
}

// tokenEntry is a stored request: the whole of it (Req), or for an access
// token what is read of it (Access). Inactive means used (a code), rotated
// or revoked (a token): fosite and check_token tell these apart from
// unknown. Expires is the expiry of the table's kind, which the expiry index
// repeats.
type tokenEntry struct {
	Req     *storedRequest `json:"req,omitempty"`
	Access  *accessRequest `json:"access,omitempty"`
	Active  bool           `json:"active"`
	Expires time.Time      `json:"expires,omitzero"`
}

// storedRequest is a fosite request as stored: the client by id (and the
// scopes view fosite saw, see FositeClient), the session of this server.
type storedRequest struct {
	ID                string     `json:"id"`
	RequestedAt       time.Time  `json:"requestedAt"`
	ClientID          string     `json:"clientID"`
	ClientScopes      []string   `json:"clientScopes"`
	RequestedScope    []string   `json:"requestedScope"`
	GrantedScope      []string   `json:"grantedScope"`
	Form              url.Values `json:"form,omitempty"`
	Session           *Session   `json:"session"`
	RequestedAudience []string   `json:"requestedAudience,omitempty"`
	GrantedAudience   []string   `json:"grantedAudience,omitempty"`
}

// accessRequest is what an access token's entry keeps of its request:
// fosite's introspection answers with the client, scopes, audience, time of
// the request, subject, user name and expiry, and its revocation needs the
// Client and the request id; the form (a few dozen bytes) comes back as it
// went in, as for every table. Nothing reads the rest of the session (the
// ID token claims, the user's names, the nonce): a new access token is made
// from the refresh token's entry, which keeps the whole request.
type accessRequest struct {
	ID          string     `json:"id"`
	RequestedAt time.Time  `json:"at"`
	ClientID    string     `json:"client,omitempty"`
	Scope       []string   `json:"scope,omitempty"`
	Audience    []string   `json:"aud,omitempty"`
	Subject     string     `json:"sub,omitempty"`
	Username    string     `json:"username,omitempty"`
	Form        url.Values `json:"form,omitempty"`
}

func (e *tokenEntry) requestID() string {
	switch {
	case e.Access != nil:
		return e.Access.ID
	case e.Req != nil:
		return e.Req.ID
	}
	return ""
}

const (
	// minSweepWrites is how many writes of one process pass between sweeps
	// of expired entries.
	minSweepWrites = 64
	// SweepBatch bounds the entries one sweep deletes, in one transaction,
	// whatever the backlog: it holds writers back (bbolt has one writer at
	// a time) for 2 ms with 1,000 live tokens and 11 ms with 100,000, where
	// each deleted key dirties a page of its own (BenchmarkScaleSweepBatch).
	SweepBatch = 256
)

func newTokenTable(s *Store, bucket string, kind fosite.TokenType, lean bool) *tokenTable {
	return &tokenTable{
		s: s, bucket: bucket, index: bucket + "-req", expiry: bucket + "-exp", kind: kind, lean: lean,
		states: newDecodeMemo[entryState](),
	}
}

var errForeignRequest = errors.New("authserver: a request without a session or client of this server")

func toStored(r fosite.Requester) (storedRequest, error) {
	sess, ok := SessionOf(r)
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
	case *FositeClient:
		sr.ClientID, sr.ClientScopes = c.ID, c.scopes
	case nil:
	default:
		return storedRequest{}, errForeignRequest
	}
	return sr, nil
}

// entryOf is the entry that stores r in this table.
func (t *tokenTable) entryOf(r fosite.Requester) (tokenEntry, error) {
	sr, err := toStored(r)
	if err != nil {
		return tokenEntry{}, err
	}
	e := tokenEntry{Active: true, Expires: sr.Session.GetExpiresAt(t.kind)}
	if t.lean {
		e.Access = leanOf(&sr)
	} else {
		e.Req = &sr
	}
	return e, nil
}

func leanOf(sr *storedRequest) *accessRequest {
	a := &accessRequest{
		ID: sr.ID, RequestedAt: sr.RequestedAt, ClientID: sr.ClientID,
		Scope: sr.GrantedScope, Audience: sr.GrantedAudience, Form: sr.Form,
	}
	if sr.Session != nil {
		a.Subject, a.Username = sr.Session.GetSubject(), sr.Session.GetUsername()
	}
	return a
}

// toRequest rebuilds the fosite request, with the client as it is now.
func (t *tokenTable) toRequest(e *tokenEntry) (*fosite.Request, bool) {
	sr := e.Req
	if e.Access != nil {
		a := e.Access
		sess := NewClientSession()
		sess.Subject, sess.Username = a.Subject, a.Username
		sess.SetExpiresAt(t.kind, e.Expires)
		sr = &storedRequest{
			ID: a.ID, RequestedAt: a.RequestedAt, ClientID: a.ClientID,
			GrantedScope: a.Scope, GrantedAudience: a.Audience, Form: a.Form, Session: sess,
		}
	}
	if sr == nil {
		return nil, false
	}
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
		c, ok := t.s.Client(sr.ClientID)
		if !ok {
			return nil, false
		}
		req.Client = &FositeClient{c, sr.ClientScopes}
	}
	return req, true
}

func sigKey(requestID, key string) string { return requestID + "\x00" + key }

// key is the store's key of a token's signature.
func (t *tokenTable) key(sig string) string {
	if !t.lean {
		return sig
	}
	sum := sha256.Sum256([]byte(sig))
	return string(sum[:])
}

// expiryKey is the key of the expiry index: an expiry before 1970 (never
// set by fosite) sorts first.
func expiryKey(exp time.Time, key string) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(max(exp.UnixNano(), 0)))
	return string(b[:]) + key
}

// put stores r.
func (t *tokenTable) put(sig string, r fosite.Requester) error {
	e, err := t.entryOf(r)
	if err != nil {
		return err
	}
	key := t.key(sig)
	err = t.s.Update(func(tx kv.Tx) error {
		if err := t.remove(tx, key); err != nil {
			return err
		}
		return t.write(tx, key, e)
	})
	if err == nil && (t.writes.Add(1)%minSweepWrites == 0 || t.backlog.Swap(false)) {
		t.sweepAfterWrite()
	}
	return err
}

// write stores e under key with its two index entries; key must be free.
func (t *tokenTable) write(tx kv.Tx, key string, e tokenEntry) error {
	if err := PutJSON(tx, t.bucket, key, e); err != nil {
		return err
	}
	id := e.requestID()
	if err := tx.Put(t.index, sigKey(id, key), []byte{1}); err != nil {
		return err
	}
	if e.Expires.IsZero() {
		return nil // never swept, as before the index
	}
	return tx.Put(t.expiry, expiryKey(e.Expires, key), expiryValue(id))
}

// expiryValue is the value of an expiry index entry: a byte that keeps it
// from being empty (which a store refuses), then the request id.
func expiryValue(requestID string) []byte { return []byte("r" + requestID) }

// sweepAfterWrite runs one sweep in the writer's goroutine: one bounded
// transaction, after the writer's own has committed; none when another
// writer's sweep is running (two would delete the same entries).
func (t *tokenTable) sweepAfterWrite() {
	if !t.sweeping.CompareAndSwap(false, true) {
		t.backlog.Store(true)
		return
	}
	defer t.sweeping.Store(false)
	_, more, err := t.sweep(time.Now())
	if err != nil {
		t.s.log.Warn("sweeping expired tokens failed", "table", t.bucket, "err", err)
		return
	}
	if more {
		t.backlog.Store(true)
	}
}

// get returns the stored request.
func (t *tokenTable) get(sig string) (req *fosite.Request, active, ok bool, err error) {
	var e tokenEntry
	err = t.s.View(func(tx kv.Tx) (err error) {
		ok, err = GetJSON(tx, t.bucket, t.key(sig), &e)
		return err
	})
	if err != nil || !ok {
		return nil, false, false, err
	}
	req, ok = t.toRequest(&e)
	return req, e.Active, ok, nil
}

// state reports whether sig is known and still active.
func (t *tokenTable) state(sig string) (found, active bool, err error) {
	return t.stateOf(t.key(sig))
}

// stateOf is state by the store's key (see key), which check_token keeps
// with a verified token rather than hash its signature on every call.
func (t *tokenTable) stateOf(key string) (found, active bool, err error) {
	err = t.s.View(func(tx kv.Tx) error {
		e, ok, err := t.states.get(tx, t.bucket, key)
		found, active = ok, ok && e.Active
		return err
	})
	return found, active, err
}

// deactivate marks sig used; it reports whether sig was known and active.
func (t *tokenTable) deactivate(sig string) (found, wasActive bool, err error) {
	key := t.key(sig)
	err = t.s.Update(func(tx kv.Tx) error {
		var e tokenEntry
		var err error
		if found, err = GetJSON(tx, t.bucket, key, &e); err != nil || !found {
			return err
		}
		wasActive, e.Active = e.Active, false
		return PutJSON(tx, t.bucket, key, e)
	})
	return found, wasActive, err
}

// deactivateRequest marks every entry of one grant inactive.
func (t *tokenTable) deactivateRequest(requestID string) error {
	return t.s.Update(func(tx kv.Tx) error {
		var keys []string
		prefix := sigKey(requestID, "")
		if err := tx.Scan(t.index, prefix, func(k string, _ []byte) error {
			keys = append(keys, k[len(prefix):])
			return nil
		}); err != nil {
			return err
		}
		for _, key := range keys {
			var e tokenEntry
			ok, err := GetJSON(tx, t.bucket, key, &e)
			if err != nil {
				return err
			}
			if ok && e.Active {
				e.Active = false
				if err := PutJSON(tx, t.bucket, key, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (t *tokenTable) delete(sig string) error {
	return t.s.Update(func(tx kv.Tx) error { return t.remove(tx, t.key(sig)) })
}

// remove deletes key and its index entries.
func (t *tokenTable) remove(tx kv.Tx, key string) error {
	var e struct {
		Req     struct{ ID string } `json:"req"`
		Access  struct{ ID string } `json:"access"`
		Expires time.Time           `json:"expires"`
	}
	ok, err := GetJSON(tx, t.bucket, key, &e)
	if err != nil || !ok {
		return err
	}
	if err := tx.Delete(t.index, sigKey(cmp.Or(e.Access.ID, e.Req.ID), key)); err != nil {
		return err
	}
	if !e.Expires.IsZero() {
		if err := tx.Delete(t.expiry, expiryKey(e.Expires, key)); err != nil {
			return err
		}
	}
	return tx.Delete(t.bucket, key)
}

// sweep deletes, in one transaction, up to SweepBatch entries that expired
// before now, oldest first, found through the expiry index: their keys and
// request ids are in it, so no entry is read. more reports that expired
// entries remain. An expired code or token is refused by its expiry before
// the store is asked, so forgetting it changes no answer.
func (t *tokenTable) sweep(now time.Time) (n int, more bool, err error) {
	err = t.s.Update(func(tx kv.Tx) error {
		type expired struct{ expKey, reqID string }
		var batch []expired
		if err := tx.Range(t.expiry, "", expiryKey(now, ""), SweepBatch+1, func(k string, v []byte) error {
			batch = append(batch, expired{k, string(v[1:])})
			return nil
		}); err != nil {
			return err
		}
		more = len(batch) > SweepBatch
		batch = batch[:min(len(batch), SweepBatch)]
		var keys, reqKeys, expKeys []string
		for _, x := range batch {
			key := x.expKey[8:]
			keys, reqKeys, expKeys = append(keys, key), append(reqKeys, sigKey(x.reqID, key)), append(expKeys, x.expKey)
		}
		// Always in this order (and PostgreSQL locks each bucket's keys in
		// key order): replicas sweeping the same entries wait for one
		// another rather than deadlock.
		for _, del := range []struct {
			bucket string
			keys   []string
		}{{t.bucket, keys}, {t.index, reqKeys}, {t.expiry, expKeys}} {
			if err := tx.Delete(del.bucket, del.keys...); err != nil {
				return err
			}
		}
		n = len(batch)
		return nil
	})
	return n, more, err
}

func (t *tokenTable) size() int {
	n := 0
	_ = t.s.View(func(tx kv.Tx) error {
		return tx.Scan(t.bucket, "", func(string, []byte) error { n++; return nil })
	})
	return n
}

// AccessKey is the store's key of an access token's signature (a digest),
// which check_token keeps with a token it verified rather than hash the
// signature on every call.
func (s *Store) AccessKey(sig string) string { return s.access.key(sig) }

// AccessState reports whether the access token of a key (AccessKey) is
// stored and still active.
func (s *Store) AccessState(key string) (found, active bool, err error) {
	return s.access.stateOf(key)
}

// InsertAccessToken stores r as the access token of signature sig in tx,
// as CreateAccessTokenSession does but without sweeping: a bulk load's
// transaction (the Scale benchmarks) writes many.
func (s *Store) InsertAccessToken(tx kv.Tx, sig string, r fosite.Requester) error {
	e, err := s.access.entryOf(r)
	if err != nil {
		return err
	}
	return s.access.write(tx, s.access.key(sig), e)
}

// SweepAccessTokens deletes, in one transaction, up to SweepBatch
// access tokens that expired before now, as a write does every
// minSweepWrites writes; more reports that expired ones remain.
func (s *Store) SweepAccessTokens(now time.Time) (deleted int, more bool, err error) {
	return s.access.sweep(now)
}
