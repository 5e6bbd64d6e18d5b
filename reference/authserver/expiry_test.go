package authserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// eachStore runs fn on a fresh store of every kind: memory, bbolt and a
// database of one real PostgreSQL server per test.
func eachStore(t *testing.T, fn func(t *testing.T, db kv.Store)) {
	var (
		once sync.Once
		pg   *pgtest.Server
		dbs  int
	)
	for _, name := range []string{"memory", "bolt", "postgres"} {
		t.Run(name, func(t *testing.T) {
			var db kv.Store
			switch name {
			case "memory":
				db = kv.NewMemory()
			case "bolt":
				b, err := kv.OpenBolt(filepath.Join(t.TempDir(), "auth.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = b.Close() })
				db = b
			case "postgres":
				once.Do(func() { pg = pgtest.Start(t) })
				dbs++
				db = openPostgresDatabase(t, pg, fmt.Sprintf("db%d", dbs))
			}
			fn(t, db)
		})
	}
}

// tableIndexes checks that t's two indexes describe its entries exactly:
// one request index entry per entry, naming its request, and one expiry
// index entry per entry that expires, at its expiry. It returns the
// entries' keys.
func tableIndexes(t *testing.T, tt *tokenTable) map[string]tokenEntry {
	t.Helper()
	entries := map[string]tokenEntry{}
	err := tt.s.view(func(tx kv.Tx) error {
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
	sess := newClientSession()
	sess.Subject = c.GetID()
	for _, kind := range []fosite.TokenType{fosite.AccessToken, fosite.RefreshToken, fosite.AuthorizeCode} {
		sess.SetExpiresAt(kind, exp)
	}
	return &fosite.Request{ID: id, RequestedAt: time.Now().UTC(), Client: c, Session: sess, GrantedScope: fosite.Arguments{"s"}}
}

// The expiry index finds the expired entries, and a sweep removes them
// (entries and both index entries), sweepBatch at most at a time, and keeps
// every live one, in every store and in a lean table (access tokens) as in
// a whole one (refresh tokens).
func TestSweepRemovesExpiredKeepsLive(t *testing.T) {
	eachStore(t, func(t *testing.T, db kv.Store) {
		s := newStore(db, nil)
		if err := s.createClient(&clientRecord{ID: "c"}); err != nil {
			t.Fatal(err)
		}
		client, _ := s.GetClient(context.Background(), "c")
		now := time.Now()
		const expired, live = sweepBatch + 10, 20
		for _, tt := range []*tokenTable{s.access, s.refresh} {
			t.Run(tt.bucket, func(t *testing.T) {
				// Written by hand, not by put, so that no sweep runs before the test's.
				err := s.update(func(tx kv.Tx) error {
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
				if err != nil || n != sweepBatch || !more {
					t.Fatalf("first sweep: %d deleted, more %v, %v; want %d and more", n, more, err, sweepBatch)
				}
				// The oldest expired first: the ones that expired last are left.
				for i := range expired {
					_, _, ok, _ := tt.get(fmt.Sprintf("sig%d", i))
					if ok != (i < expired-sweepBatch) {
						t.Errorf("after one sweep sig%d found %v", i, ok)
					}
				}
				n, more, err = tt.sweep(now)
				if err != nil || n != expired-sweepBatch || more {
					t.Fatalf("second sweep: %d deleted, more %v, %v; want %d and no more", n, more, err, expired-sweepBatch)
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
// deleted; and whole flows (a refresh, a revocation, a code replay) leave
// every table consistent.
func TestIndexesFollowEveryChange(t *testing.T) {
	eachStore(t, func(t *testing.T, db kv.Store) {
		ts := newTestServer(t, func(o *Options) { o.Store = db })
		s := ts.store
		client, _ := s.GetClient(context.Background(), "admin")
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

		// Whole flows: a refresh rotates the refresh token and retires the
		// access token; a revocation retires the grant; a replayed code
		// revokes what it issued.
		tk := userTokens(t, ts, "openid fortunes.read")
		refreshed := tokensOf(t, post(t, ts, "/oauth/token", "greeting:greeting-secret",
			url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}}))
		assertRevoked(t, ts, tk.AccessToken)
		if r := checkToken(t, ts, refreshed.AccessToken); r.status != http.StatusOK {
			t.Fatalf("the refreshed token: %d %s", r.status, r.body)
		}
		if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {refreshed.AccessToken}}); r.status != http.StatusOK {
			t.Fatalf("revoke: %d %s", r.status, r.body)
		}
		assertRevoked(t, ts, refreshed.AccessToken)
		b := newBrowser(t, ts)
		code := codeOf(t, b.approve(authParams("openid"), DemoUserName, DemoUserPassword))
		first := tokensOf(t, exchange(t, ts, code, nil))
		if r := exchange(t, ts, code, nil); r.status != http.StatusBadRequest {
			t.Fatalf("a replayed code: %d %s", r.status, r.body)
		}
		assertRevoked(t, ts, first.AccessToken)
		for _, tt := range []*tokenTable{s.codes, s.pkce, s.oidc, s.access, s.refresh} {
			tableIndexes(t, tt)
		}
		if n := len(tableIndexes(t, s.access)); n != 3 {
			t.Errorf("%d access tokens stored, want the 3 issued (revoked ones stay until they expire)", n)
		}
	})
}

// A store written before the expiry index and the lean access tokens is
// migrated at start: its access tokens (whole requests, by signature) move
// to their digest and stay valid, expired ones go, the other tables and the
// users get their indexes; a second start changes nothing.
func TestMigrationOfAnEarlierStore(t *testing.T) {
	eachStore(t, func(t *testing.T, db kv.Store) {
		ts := newTestServer(t, func(o *Options) { o.Store = db })
		s := ts.store
		ctx := context.Background()
		client, _ := s.GetClient(ctx, "greeting")
		marissa, _ := s.userByName(DemoUserName)

		// The earlier layout: access tokens whole, by signature, in "access"
		// and "access-req"; no expiry index; no index by e-mail; no marks.
		legacy := func(exp time.Time) string {
			req := tokenRequest(client, newID(), exp)
			sess := newUserSession(marissa, time.Now().UTC(), "")
			sess.SetExpiresAt(fosite.AccessToken, exp)
			req.Session = sess
			token, sig, err := ts.tokens.GenerateAccessToken(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := toStored(req)
			if err != nil {
				t.Fatal(err)
			}
			err = s.update(func(tx kv.Tx) error {
				if err := putJSON(tx, bucketLegacyAccess, sig, tokenEntry{Req: &sr, Active: true, Expires: exp}); err != nil {
					return err
				}
				return tx.Put(bucketLegacyAccess+"-req", sigKey(sr.ID, sig), []byte{1})
			})
			if err != nil {
				t.Fatal(err)
			}
			return token
		}
		live, expired := legacy(time.Now().Add(time.Hour)), legacy(time.Now().Add(-time.Hour))
		if err := s.refresh.put("refresh-sig", tokenRequest(client, "r9", time.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		err := s.update(func(tx kv.Tx) error {
			for _, b := range []string{s.refresh.expiry, bucketUserEmails, bucketSchema} {
				var keys []string
				if err := tx.Scan(b, "", func(k string, _ []byte) error { keys = append(keys, k); return nil }); err != nil {
					return err
				}
				for _, k := range keys {
					if err := tx.Delete(b, k); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}

		for start := range 2 {
			ts := newTestServer(t, func(o *Options) { o.Store = db })
			if r := checkToken(t, ts, live); r.status != http.StatusOK {
				t.Fatalf("start %d: an earlier live token: %d %s", start, r.status, r.body)
			}
			m := post(t, ts, "/introspect", "fortune:fortune-secret", url.Values{"token": {live}}).json(t)
			if m["active"] != true || m["client_id"] != "greeting" || m["username"] != DemoUserName || m["sub"] != marissa.ID {
				t.Fatalf("start %d: introspection of an earlier token: %v", start, m)
			}
			if r := checkToken(t, ts, expired); r.status == http.StatusOK {
				t.Fatalf("start %d: an earlier expired token passes", start)
			}
			if e := tableIndexes(t, ts.store.access); len(e) != 1+start { // and the admin token of the start before
				t.Fatalf("start %d: %d access tokens, want the live one", start, len(e))
			}
			if e := tableIndexes(t, ts.store.refresh); len(e) != 1 {
				t.Fatalf("start %d: %d refresh tokens", start, len(e))
			}
			for _, b := range []string{bucketLegacyAccess, bucketLegacyAccess + "-req"} {
				_ = ts.store.view(func(tx kv.Tx) error {
					return tx.Scan(b, "", func(k string, _ []byte) error {
						t.Errorf("start %d: %s still holds %q", start, b, k)
						return nil
					})
				})
			}
			r := api(t, ts, "GET", "/Users?filter="+url.QueryEscape(`email eq "`+marissa.Email+`"`), adminToken(t, ts), "")
			if r.status != http.StatusOK || !strings.Contains(r.body, `"id":"`+marissa.ID+`"`) {
				t.Fatalf("start %d: email eq after the migration: %d %s", start, r.status, r.body)
			}
		}
		// Revoked through the request index the migration rewrote.
		if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {live}}); r.status != http.StatusOK {
			t.Fatalf("revoke: %d %s", r.status, r.body)
		}
		assertRevoked(t, ts, live)
	})
}

// A backlog of expired entries (after a restart, or more expiring than
// written) goes a batch per write: once a sweep leaves expired entries,
// the next write sweeps again instead of waiting minSweepWrites writes.
func TestSweepDrainsABacklogABatchPerWrite(t *testing.T) {
	s := newStore(kv.NewMemory(), nil)
	if err := s.createClient(&clientRecord{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	client, _ := s.GetClient(context.Background(), "c")
	tt := s.access
	const backlog = 3*sweepBatch + 5 // four sweeps
	err := s.update(func(tx kv.Tx) error {
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
		if left := len(tableIndexes(t, tt)) - (i + 1); i == minSweepWrites-1 && left != backlog-sweepBatch {
			t.Fatalf("after the first sweep %d expired entries are left, want %d", left, backlog-sweepBatch)
		}
	}
	if n := len(tableIndexes(t, tt)); n != minSweepWrites+3 {
		t.Fatalf("%d entries, want the %d live ones: the backlog was not swept a batch per write", n, minSweepWrites+3)
	}
}

// While a sweep runs, a write that would sweep leaves it to the next write
// (two sweeps of one process would delete the same entries).
func TestOneSweepAtATime(t *testing.T) {
	s := newStore(kv.NewMemory(), nil)
	if err := s.createClient(&clientRecord{ID: "c"}); err != nil {
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
