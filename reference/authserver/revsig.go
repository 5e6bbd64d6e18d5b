package authserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// revSigMemo remembers the rev_sig of a client and a user with the stored
// bytes it was computed from. check_token compares a token's rev_sig with
// the current one on every call; the records are still read each time, but
// decoded and digested again only when their bytes differ from the ones
// remembered, so a change (a new password, by any replica) is seen at the
// next call, as without the memo.
type revSigMemo struct {
	cache *lru.Cache[revSigKey, revSigEntry]
}

func newRevSigMemo() *revSigMemo {
	return &revSigMemo{cache: lru.New[revSigKey, revSigEntry](maxMemoized)}
}

type revSigKey struct{ clientID, userID string }

type revSigEntry struct {
	client, user []byte // the stored records; user is nil for a client's own token
	sig          string
}

// current returns the rev_sig of the client clientID and, unless userID is
// "", of that user, as stored now; "" when either is absent or cannot be
// read or decoded (logged as store.client and store.user log it).
func (m *revSigMemo) current(tx kv.Tx, s *store, clientID, userID string) string {
	client, ok, err := tx.Borrow(bucketClients, clientID)
	if err != nil || !ok {
		return failedRead(s, "client", err)
	}
	var user []byte
	if userID != "" {
		if user, ok, err = tx.Borrow(bucketUsers, userID); err != nil || !ok {
			return failedRead(s, "user", err)
		}
	}
	k := revSigKey{clientID, userID}
	if e, hit := m.cache.Get(k, lru.Never); hit && bytes.Equal(e.client, client) && bytes.Equal(e.user, user) {
		return e.sig
	}
	c := new(clientRecord)
	if err := json.Unmarshal(client, c); err != nil {
		return failedRead(s, "client", fmt.Errorf("%s %q: %w", bucketClients, clientID, err))
	}
	var u *userRecord
	if user != nil {
		u = new(userRecord)
		if err := json.Unmarshal(user, u); err != nil {
			return failedRead(s, "user", fmt.Errorf("%s %q: %w", bucketUsers, userID, err))
		}
	}
	sig := revSig(c, u)
	m.cache.Add(k, revSigEntry{client: bytes.Clone(client), user: bytes.Clone(user), sig: sig}, lru.Never)
	return sig
}

// failedRead logs err, if any, and returns the rev_sig of a record that
// cannot be had: "".
func failedRead(s *store, op string, err error) string {
	if err != nil {
		s.readFailed(op, err)
	}
	return ""
}
