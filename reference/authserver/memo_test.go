package authserver

import (
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// The memo of client decodings changes nothing a reader sees: a replica's
// write (another store on the same database) is read at once, and a caller
// that changes its copy changes no one else's.
func TestClientMemoSeesEveryWrite(t *testing.T) {
	db := kv.NewMemory()
	s, replica := newStore(db, nil), newStore(db, nil)
	c := &clientRecord{ID: "app", SecretHash: []byte("h1"), Authorities: []string{"uaa.resource"}}
	if err := s.createClient(c); err != nil {
		t.Fatal(err)
	}
	first, ok := s.client("app")
	if !ok || string(first.SecretHash) != "h1" {
		t.Fatalf("%+v %v", first, ok)
	}
	first.Authorities[0] = "changed by a caller"
	first.SecretHash[0] = 'x'
	again, _ := s.client("app")
	if again.Authorities[0] != "uaa.resource" || string(again.SecretHash) != "h1" {
		t.Fatalf("a caller's change reached the next reader: %+v", again)
	}
	c.SecretHash, c.Authorities = []byte("h2"), nil
	if err := replica.putClient(c); err != nil {
		t.Fatal(err)
	}
	if now, _ := s.client("app"); string(now.SecretHash) != "h2" || len(now.Authorities) != 0 {
		t.Fatalf("the replica's write is not read: %+v", now)
	}
}

// A token revoked by a replica is inactive at the next check.
func TestTokenStateMemoSeesRevocation(t *testing.T) {
	db := kv.NewMemory()
	s, replica := newStore(db, nil), newStore(db, nil)
	if err := s.update(func(tx kv.Tx) error { return putJSON(tx, "access", "sig", tokenEntry{Active: true}) }); err != nil {
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
