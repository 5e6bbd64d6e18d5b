package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// RevSig is the revocation signature: a digest over what identifies the
// grant (client id and secret, user id, password, e-mail and user name).
// Changing any of them, a password above all, makes earlier tokens fail the
// comparison in check_token, which then answers "revoked". UAA uses murmur3;
// any stable digest will do.
func RevSig(c *Client, u *User) string {
	h := sha256.New()
	writeField(h, c.ID)
	writeField(h, string(c.SecretHash))
	if u != nil {
		writeField(h, u.ID)
		writeField(h, string(u.PasswordHash))
		writeField(h, u.Email)
		writeField(h, u.UserName)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// writeField writes s with its length, so that fields cannot run together.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// CurrentRevSig is the rev_sig of a token's client and user (none for a
// client's own token) as they are stored now; "" (never equal to a real
// one) when either is gone or cannot be read.
func (s *Store) CurrentRevSig(clientID, userID string) string {
	var sig string
	err := s.View(func(tx kv.Tx) error {
		sig = s.revSigs.current(tx, s, clientID, userID)
		return nil
	})
	if err != nil {
		s.ReadFailed("rev_sig", err)
		return ""
	}
	return sig
}

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
// read or decoded (logged as Store.Client and Store.User log it).
func (m *revSigMemo) current(tx kv.Tx, s *Store, clientID, userID string) string {
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
	c := new(Client)
	if err := json.Unmarshal(client, c); err != nil {
		return failedRead(s, "client", fmt.Errorf("%s %q: %w", bucketClients, clientID, err))
	}
	var u *User
	if user != nil {
		u = new(User)
		if err := json.Unmarshal(user, u); err != nil {
			return failedRead(s, "user", fmt.Errorf("%s %q: %w", bucketUsers, userID, err))
		}
	}
	sig := RevSig(c, u)
	m.cache.Add(k, revSigEntry{client: bytes.Clone(client), user: bytes.Clone(user), sig: sig}, lru.Never)
	return sig
}

// failedRead logs err, if any, and returns the rev_sig of a record that
// cannot be had: "".
func failedRead(s *Store, op string, err error) string {
	if err != nil {
		s.ReadFailed(op, err)
	}
	return ""
}
