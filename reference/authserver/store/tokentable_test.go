package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv/kvtest"
)

// tableIndexes checks that t's two indexes describe its entries exactly:
// one request index entry per entry, naming its request, and one expiry
// index entry per entry that expires, at its expiry. It returns the
// entries' keys.
func tableIndexes(t *testing.T, tt *tokenTable) map[string]tokenEntry {
	t.Helper()
	entries := map[string]tokenEntry{}
	err := tt.s.View(func(tx kv.Tx) error {
		if err := tx.Scan(tt.bucket, "", func(k string, v []byte) error {
			var e tokenEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			entries[k] = e
			return nil
		}); err != nil {
			return err
		}
		byReq := map[string]int{}
		if err := tx.Scan(tt.index, "", func(k string, _ []byte) error {
			id, key, _ := strings.Cut(k, "\x00")
			e, ok := entries[key]
			if !ok || e.requestID() != id {
				t.Errorf("%s: request index entry %q for an entry that is not there (or of another request)", tt.bucket, k)
			}
			byReq[key]++
			return nil
		}); err != nil {
			return err
		}
		byExp := map[string]int{}
		if err := tx.Scan(tt.expiry, "", func(k string, v []byte) error {
			key := k[8:]
			e, ok := entries[key]
			if !ok || expiryKey(e.Expires, key) != k || string(v[1:]) != e.requestID() {
				t.Errorf("%s: expiry index entry %x for an entry that is not there (or expires at another time)", tt.bucket, k)
			}
			byExp[key]++
			return nil
		}); err != nil {
			return err
		}
		for k, e := range entries {
			want := 1
			if e.Expires.IsZero() {
				want = 0
			}
			if byReq[k] != 1 || byExp[k] != want {
				t.Errorf("%s: entry %x has %d request index entries and %d expiry index entries, want 1 and %d",
					tt.bucket, k, byReq[k], byExp[k], want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// tokenRequest is a request of client c whose tokens expire at exp.
func tokenRequest(c fosite.Client, id string, exp time.Time) *fosite.Request {
	sess := NewClientSession()
	sess.Subject = c.GetID()
	for _, kind := range []fosite.TokenType{fosite.AccessToken, fosite.RefreshToken, fosite.AuthorizeCode} {
		sess.SetExpiresAt(kind, exp)
	}
	return &fosite.Request{ID: id, RequestedAt: time.Now().UTC(), Client: c, Session: sess, GrantedScope: fosite.Arguments{"s"}}
}

// The expiry index finds the expired entries, and a sweep removes them
// (entries and both index entries), SweepBatch at most at a time, and keeps
// every live one, in every store and in a lean table (access tokens) as in
// a whole one (refresh tokens).
func TestSweepRemovesExpiredKeepsLive(t *testing.T) {
	kvtest.EachStore(t, func(t *testing.T, db kv.Store) {
		s := New(db, nil)
		if err := s.CreateClient(&Client{ID: "c"}); err != nil {
			t.Fatal(err)
		}
		client, _ := s.GetClient(context.Background(), "c")
		now := time.Now()
		const expired, live = SweepBatch + 10, 20
		for _, tt := range []*tokenTable{s.access, s.refresh} {
			t.Run(tt.bucket, func(t *testing.T) {
				// Written by hand, not by put, so that no sweep runs before the test's.
				err := s.Update(func(tx kv.Tx) error {
					for i := range expired + live {
						exp := now.Add(-time.Duration(i+1) * time.Second) // the first ones expired last
						if i >= expired {
							exp = now.Add(time.Duration(i-expired+1) * time.Second)
						}
						e, err := tt.entryOf(tokenRequest(client, fmt.Sprintf("req%d", i%7), exp))
						if err != nil {
							return err
						}
						if err := tt.write(tx, tt.key(fmt.Sprintf("sig%d", i)), e); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				tableIndexes(t, tt)
				n, more, err := tt.sweep(now)
				if err != nil || n != SweepBatch || !more {
					t.Fatalf("first sweep: %d deleted, more %v, %v; want %d and more", n, more, err, SweepBatch)
				}
				// The oldest expired first: the ones that expired last are left.
				for i := range expired {
					_, _, ok, _ := tt.get(fmt.Sprintf("sig%d", i))
					if ok != (i < expired-SweepBatch) {
						t.Errorf("after one sweep sig%d found %v", i, ok)
					}
				}
				n, more, err = tt.sweep(now)
				if err != nil || n != expired-SweepBatch || more {
					t.Fatalf("second sweep: %d deleted, more %v, %v; want %d and no more", n, more, err, expired-SweepBatch)
				}
				if n, _, _ := tt.sweep(now); n != 0 {
					t.Fatalf("a third sweep deleted %d", n)
				}
				entries := tableIndexes(t, tt)
				if len(entries) != live {
					t.Fatalf("%d entries left, want the %d live ones", len(entries), live)
				}
				for i := expired; i < expired+live; i++ {
					if _, active, ok, err := tt.get(fmt.Sprintf("sig%d", i)); !ok || !active || err != nil {
						t.Errorf("live sig%d: found %v active %v %v", i, ok, active, err)
					}
				}
			})
		}
	})
}

// The indexes follow every change of an entry: overwritten (with another
// expiry), deactivated (used, rotated, revoked), a whole grant revoked,
// deleted (whole flows: server_test.go).
func TestIndexesFollowEveryChange(t *testing.T) {
	kvtest.EachStore(t, func(t *testing.T, db kv.Store) {
		s := New(db, nil)
		if err := s.CreateClient(&Client{ID: "c"}); err != nil {
			t.Fatal(err)
		}
		client, _ := s.GetClient(context.Background(), "c")
		in := func(d time.Duration) time.Time { return time.Now().Add(d) }
		for _, tt := range []*tokenTable{s.access, s.refresh} {
			if err := tt.put("a", tokenRequest(client, "r1", in(time.Hour))); err != nil {
				t.Fatal(err)
			}
			if err := tt.put("b", tokenRequest(client, "r1", in(2*time.Hour))); err != nil {
				t.Fatal(err)
			}
			// Overwritten with another request and an earlier expiry.
			if err := tt.put("a", tokenRequest(client, "r2", in(-time.Minute))); err != nil {
				t.Fatal(err)
			}
			tableIndexes(t, tt)
			if _, was, err := tt.deactivate("b"); !was || err != nil {
				t.Fatalf("%s: deactivate: %v %v", tt.bucket, was, err)
			}
			if err := tt.deactivateRequest("r2"); err != nil {
				t.Fatal(err)
			}
			if _, active, _ := tt.state("a"); active {
				t.Errorf("%s: a is active after its grant was revoked", tt.bucket)
			}
			tableIndexes(t, tt)
			// a expired a minute ago: the sweep takes it, inactive as it is, and leaves b.
			if n, _, err := tt.sweep(time.Now()); n != 1 || err != nil {
				t.Fatalf("%s: sweep deleted %d, %v; want a", tt.bucket, n, err)
			}
			if e := tableIndexes(t, tt); len(e) != 1 {
				t.Fatalf("%s: %d entries, want b", tt.bucket, len(e))
			}
			if err := tt.delete("b"); err != nil {
				t.Fatal(err)
			}
			if e := tableIndexes(t, tt); len(e) != 0 {
				t.Fatalf("%s: %d entries after the delete", tt.bucket, len(e))
			}
		}

	})
}

// Every minSweepWrites-th write sweeps: the entries and their request index.
func TestTokenTableSweepsExpired(t *testing.T) {
	s := New(kv.NewMemory(), nil)
	if err := s.CreateClient(&Client{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	client, _ := s.GetClient(context.Background(), "c")
	table := s.access
	expired := NewClientSession()
	expired.SetExpiresAt(fosite.AccessToken, time.Now().Add(-time.Minute))
	for i := range minSweepWrites - 1 {
		if err := table.put(fmt.Sprintf("old%d", i), &fosite.Request{ID: fmt.Sprintf("r%d", i), Client: client, Session: expired}); err != nil {
			t.Fatal(err)
		}
	}
	live := NewClientSession()
	live.SetExpiresAt(fosite.AccessToken, time.Now().Add(time.Hour))
	if err := table.put("live", &fosite.Request{ID: "live", Client: client, Session: live}); err != nil {
		t.Fatal(err)
	}
	if n := table.size(); n != 1 {
		t.Fatalf("%d entries after the sweep, want 1", n)
	}
	n := 0
	_ = s.View(func(tx kv.Tx) error {
		return tx.Scan(table.index, "", func(string, []byte) error { n++; return nil })
	})
	if n != 1 {
		t.Fatalf("request index not swept: %d", n)
	}
}

// A backlog of expired entries (after a restart, or more expiring than
// written) goes a batch per write: once a sweep leaves expired entries,
// the next write sweeps again instead of waiting minSweepWrites writes.
func TestSweepDrainsABacklogABatchPerWrite(t *testing.T) {
	s := New(kv.NewMemory(), nil)
	if err := s.CreateClient(&Client{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	client, _ := s.GetClient(context.Background(), "c")
	tt := s.access
	const backlog = 3*SweepBatch + 5 // four sweeps
	err := s.Update(func(tx kv.Tx) error {
		for i := range backlog {
			e, err := tt.entryOf(tokenRequest(client, "old", time.Now().Add(-time.Minute)))
			if err != nil {
				return err
			}
			if err := tt.write(tx, tt.key(fmt.Sprint("old", i)), e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range minSweepWrites + 3 { // the first sweep at the last of minSweepWrites, then three more
		if err := tt.put(fmt.Sprint("new", i), tokenRequest(client, "new", time.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		if left := len(tableIndexes(t, tt)) - (i + 1); i == minSweepWrites-1 && left != backlog-SweepBatch {
			t.Fatalf("after the first sweep %d expired entries are left, want %d", left, backlog-SweepBatch)
		}
	}
	if n := len(tableIndexes(t, tt)); n != minSweepWrites+3 {
		t.Fatalf("%d entries, want the %d live ones: the backlog was not swept a batch per write", n, minSweepWrites+3)
	}
}

// While a sweep runs, a write that would sweep leaves it to the next write
// (two sweeps of one process would delete the same entries).
func TestOneSweepAtATime(t *testing.T) {
	s := New(kv.NewMemory(), nil)
	if err := s.CreateClient(&Client{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	client, _ := s.GetClient(context.Background(), "c")
	tt := s.access
	put := func(sig string, exp time.Duration) {
		t.Helper()
		if err := tt.put(sig, tokenRequest(client, sig, time.Now().Add(exp))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range minSweepWrites - 1 {
		put(fmt.Sprint("old", i), -time.Minute)
	}
	tt.sweeping.Store(true) // another writer's sweep
	put("live", time.Hour)  // the minSweepWrites-th write
	if n := len(tableIndexes(t, tt)); n != minSweepWrites {
		t.Fatalf("%d entries: a second sweep ran", n)
	}
	tt.sweeping.Store(false)
	put("live2", time.Hour)
	if n := len(tableIndexes(t, tt)); n != 2 {
		t.Fatalf("%d entries: the write after the sweep did not sweep", n)
	}
}
