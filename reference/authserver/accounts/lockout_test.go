package accounts

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// newAccounts is the accounts of a fresh store with one user, ann (password
// "pw"), under UAA's default lockout.
func newAccounts(t *testing.T) (*Accounts, *store.Store) {
	t.Helper()
	st := store.New(kv.NewMemory(), nil)
	policy, err := LockoutPolicy{}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	a := New(st, NewHasher(bcrypt.MinCost), NewLockout(st, []byte("secret"), policy), nil)
	if _, err := a.AddUser(context.Background(), UserSpec{UserName: "ann", Email: "ann@test.org", Password: "pw", Active: true}); err != nil {
		t.Fatal(err)
	}
	return a, st
}

// A flood of sign-ins under fresh names adds no records past the slots of
// unknown names, and does not evict the count of a user it locked.
func TestLockoutMemoryIsBoundedUnderAFloodOfNames(t *testing.T) {
	a, st := newAccounts(t)
	const slots = 32
	a.Lockout.slots = slots
	req := httptest.NewRequest(http.MethodPost, "/login.do", nil)
	for range DefaultLockoutAfterFailures {
		if u, refused := a.Authenticate(req, "ann", "wrong"); u != nil || refused == nil || refused.Message != badCredentials {
			t.Fatalf("a wrong password: %v %+v", u, refused)
		}
	}
	for i := range 16 * slots {
		if u, refused := a.Authenticate(req, fmt.Sprintf("flood-%d", i), "wrong"); u != nil || refused == nil {
			t.Fatal("a flood name signed in")
		}
	}
	records := 0
	err := st.View(func(tx kv.Tx) error {
		return tx.Scan(bucketLockout, "", func(string, []byte) error { records++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if records > slots+1 {
		t.Fatalf("%d failure records after a flood of %d names, want at most %d slots and ann's", records, 16*slots, slots)
	}
	if _, refused := a.Authenticate(req, "ann", "pw"); refused == nil || refused.Status != http.StatusUnauthorized || refused.Message != lockedOut {
		t.Fatalf("the locked user after the flood: %+v", refused)
	}
}
