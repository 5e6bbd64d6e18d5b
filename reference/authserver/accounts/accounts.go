package accounts

import (
	"log/slog"
	"sync"

	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// Grants are the grant types the server offers: the token endpoint serves
// these, and a client is registered with these only.
var Grants = []string{"authorization_code", "refresh_token", "client_credentials"}

// Accounts are the users, groups and clients of a store as they are
// registered (checked, their secrets hashed) and as users sign in.
type Accounts struct {
	// Lockout counts failed sign-ins (UAA's lockoutPolicy).
	Lockout *Lockout

	store  *store.Store
	hasher *Hasher
	log    *slog.Logger // sign-ins and their audit events

	dummyOnce sync.Once
	dummy     []byte // see dummyHash
}

// New registers in st, hashes with hasher and counts sign-ins with
// lockout; log receives the audit events of sign-ins (nil discards them).
func New(st *store.Store, hasher *Hasher, lockout *Lockout, log *slog.Logger) *Accounts {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Accounts{Lockout: lockout, store: st, hasher: hasher, log: log}
}

// Forget drops a deleted user's count of failed sign-ins.
func (a *Accounts) Forget(userID string) error { return a.Lockout.forget(userID) }
