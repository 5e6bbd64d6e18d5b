package store

import (
	"context"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// The memo of client decodings changes nothing a reader sees: a replica's
// write (another store on the same database) is read at once, and a caller
// that changes its copy changes no one else's.
func TestClientMemoSeesEveryWrite(t *testing.T) {
	db := kv.NewMemory()
	s, replica := New(db, nil), New(db, nil)
	c := &Client{ID: "app", SecretHash: []byte("h1"), Authorities: []string{"uaa.resource"}}
	if err := s.CreateClient(c); err != nil {
		t.Fatal(err)
	}
	first, ok := s.Client("app")
	if !ok || string(first.SecretHash) != "h1" {
		t.Fatalf("%+v %v", first, ok)
	}
	first.Authorities[0] = "changed by a caller"
	first.SecretHash[0] = 'x'
	again, _ := s.Client("app")
	if again.Authorities[0] != "uaa.resource" || string(again.SecretHash) != "h1" {
		t.Fatalf("a caller's change reached the next reader: %+v", again)
	}
	c.SecretHash, c.Authorities = []byte("h2"), nil
	if err := replica.PutClient(c); err != nil {
		t.Fatal(err)
	}
	if now, _ := s.Client("app"); string(now.SecretHash) != "h2" || len(now.Authorities) != 0 {
		t.Fatalf("the replica's write is not read: %+v", now)
	}
}

// A token revoked by a replica is inactive at the next check.
func TestTokenStateMemoSeesRevocation(t *testing.T) {
	db := kv.NewMemory()
	s, replica := New(db, nil), New(db, nil)
	if err := s.Update(func(tx kv.Tx) error {
		return PutJSON(tx, s.access.bucket, s.access.key("sig"), tokenEntry{Active: true})
	}); err != nil {
		t.Fatal(err)
	}
	if found, active, err := s.access.state("sig"); !found || !active || err != nil {
		t.Fatalf("%v %v %v", found, active, err)
	}
	if _, was, err := replica.access.deactivate("sig"); !was || err != nil {
		t.Fatalf("%v %v", was, err)
	}
	if found, active, _ := s.access.state("sig"); !found || active {
		t.Fatalf("a revoked token is still active (found=%v)", found)
	}
}

// A shared decoding is never changed: a write gives later readers a new
// one, and an earlier reader keeps what it read.
func TestSharedClientIsNeverChangedInPlace(t *testing.T) {
	db := kv.NewMemory()
	s, replica := New(db, nil), New(db, nil)
	c := &Client{ID: "app", SecretHash: []byte("h1"), Authorities: []string{"a1", "b1"}}
	if err := s.CreateClient(c); err != nil {
		t.Fatal(err)
	}
	before, _ := s.SharedClient("app")
	c.SecretHash, c.Authorities = []byte("h2"), []string{"a2", "b2"}
	if err := replica.PutClient(c); err != nil {
		t.Fatal(err)
	}
	after, _ := s.SharedClient("app")
	if string(after.SecretHash) != "h2" || after.Authorities[0] != "a2" {
		t.Fatalf("the replica's write is not read: %+v", after)
	}
	if string(before.SecretHash) != "h1" || before.Authorities[0] != "a1" || before.Authorities[1] != "b1" {
		t.Fatalf("a reader's decoding changed under it: %+v", before)
	}
}

// deadlineStore is a kv.Store outside this process, as PostgreSQL is: it
// notes whether each transaction had a deadline.
type deadlineStore struct {
	*kv.Memory
	withDeadline, without int
}

func (d *deadlineStore) View(ctx context.Context, fn func(kv.Tx) error) error {
	if _, ok := ctx.Deadline(); ok {
		d.withDeadline++
	} else {
		d.without++
	}
	return d.Memory.View(ctx, fn)
}

// A database's transactions are bounded by storeTimeout; those of a store in
// this process, which ignores the context, cost no timer.
func TestStoreTransactionDeadlines(t *testing.T) {
	remote := &deadlineStore{Memory: kv.NewMemory()}
	New(remote, nil).SharedClient("app")
	if remote.withDeadline != 1 || remote.without != 0 {
		t.Errorf("a database's read: %d with a deadline, %d without; want 1, 0", remote.withDeadline, remote.without)
	}
	local := New(kv.NewMemory(), nil)
	read := func(kv.Tx) error { return nil }
	if n := testing.AllocsPerRun(100, func() { _ = local.View(read) }); n != 0 {
		t.Errorf("%v allocations per view of a memory store, want 0", n)
	}
}
