package store

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// revSigFixture is a store with one client and one user, and a replica
// store on the same database that changes them.
func revSigFixture(t *testing.T) (s, replica *Store, logs *bytes.Buffer) {
	t.Helper()
	db := kv.NewMemory()
	logs = new(bytes.Buffer)
	s, replica = New(db, slog.New(slog.NewTextHandler(logs, nil))), New(db, nil)
	if err := s.CreateClient(&Client{ID: "app", SecretHash: []byte("h1")}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(&User{ID: "u1", UserName: "ann", Email: "ann@test.org", PasswordHash: []byte("p1")}); err != nil {
		t.Fatal(err)
	}
	return s, replica, logs
}

func currentRevSig(s *Store, m *revSigMemo, clientID, userID string) (sig string) {
	_ = s.View(func(tx kv.Tx) error {
		sig = m.current(tx, s, clientID, userID)
		return nil
	})
	return sig
}

// The memo answers what revSig computes from the records as they are now,
// whoever changed them.
func TestRevSigMemoFollowsTheStore(t *testing.T) {
	s, replica, _ := revSigFixture(t)
	m := newRevSigMemo()
	want := func(clientID, userID string) string {
		c, _ := s.Client(clientID)
		if userID == "" {
			return RevSig(c, nil)
		}
		u, _ := s.User(userID)
		return RevSig(c, u)
	}
	for range 2 { // computed, then remembered
		if got := currentRevSig(s, m, "app", "u1"); got == "" || got != want("app", "u1") {
			t.Fatalf("user token: %q, want %q", got, want("app", "u1"))
		}
		if got := currentRevSig(s, m, "app", ""); got == "" || got != want("app", "") {
			t.Fatalf("client token: %q, want %q", got, want("app", ""))
		}
	}
	old := currentRevSig(s, m, "app", "u1")
	u, _ := s.User("u1")
	u.PasswordHash = []byte("p2")
	if err := replica.Update(func(tx kv.Tx) error { return PutJSON(tx, bucketUsers, "u1", u) }); err != nil {
		t.Fatal(err)
	}
	if got := currentRevSig(s, m, "app", "u1"); got == old || got != want("app", "u1") {
		t.Fatalf("a new password kept the rev_sig: %q (was %q)", got, old)
	}
	oldClient := currentRevSig(s, m, "app", "")
	if err := replica.PutClient(&Client{ID: "app", SecretHash: []byte("h2")}); err != nil {
		t.Fatal(err)
	}
	if got := currentRevSig(s, m, "app", ""); got == oldClient || got != want("app", "") {
		t.Fatalf("a new client secret kept the rev_sig: %q (was %q)", got, oldClient)
	}
}

// A record that is gone, or unreadable, has no rev_sig, even when one was
// remembered; the unreadable one is logged.
func TestRevSigMemoOfMissingOrBrokenRecords(t *testing.T) {
	s, replica, logs := revSigFixture(t)
	m := newRevSigMemo()
	if currentRevSig(s, m, "app", "u1") == "" || currentRevSig(s, m, "nobody", "") != "" || currentRevSig(s, m, "app", "nobody") != "" {
		t.Fatal("a missing client or user has a rev_sig")
	}
	if err := replica.Update(func(tx kv.Tx) error { return tx.Put(bucketUsers, "u1", []byte("{not json")) }); err != nil {
		t.Fatal(err)
	}
	if got := currentRevSig(s, m, "app", "u1"); got != "" {
		t.Fatalf("an undecodable user has the rev_sig %q", got)
	}
	if !strings.Contains(logs.String(), "store read failed") || !strings.Contains(logs.String(), "op=user") {
		t.Errorf("the undecodable user is not logged: %s", logs)
	}
	if err := replica.Update(func(tx kv.Tx) error { return tx.Delete(bucketClients, "app") }); err != nil {
		t.Fatal(err)
	}
	if got := currentRevSig(s, m, "app", ""); got != "" {
		t.Fatalf("a deleted client has the rev_sig %q", got)
	}
}

// A remembered rev_sig costs neither a decoding nor a digest: no
// allocation at all.
func TestRevSigMemoHitAllocatesNothing(t *testing.T) {
	s, _, _ := revSigFixture(t)
	m := newRevSigMemo()
	_ = s.View(func(tx kv.Tx) error {
		m.current(tx, s, "app", "u1")
		if n := testing.AllocsPerRun(100, func() { m.current(tx, s, "app", "u1") }); n != 0 {
			t.Errorf("%v allocations per remembered rev_sig, want 0", n)
		}
		return nil
	})
}
