package store

import (
	"encoding/json"
	"fmt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// UserReader reads users and their indexes inside one read transaction
// (ReadUsers): what a filter on users needs, to be answered from the
// indexes by name and by e-mail, or by a scan a batch at a time.
type UserReader struct{ tx kv.Tx }

// ReadUsers runs fn in one read transaction.
func (s *Store) ReadUsers(fn func(UserReader) error) error {
	return s.View(func(tx kv.Tx) error { return fn(UserReader{tx}) })
}

// User returns the user of an id.
func (r UserReader) User(id string) (*User, bool, error) {
	u := new(User)
	if ok, err := GetJSON(r.tx, bucketUsers, id, u); err != nil || !ok {
		return nil, false, err
	}
	return u, true, nil
}

// IDByName returns the id of the user of a name, in any case.
func (r UserReader) IDByName(name string) (string, bool, error) {
	id, ok, err := r.tx.Get(bucketUserNames, Fold(name))
	return string(id), ok, err
}

// IDsByEmail returns the ids of the users of an e-mail, in any case, at
// most limit of them.
func (r UserReader) IDsByEmail(email string, limit int) ([]string, error) {
	var ids []string
	prefix := Fold(email) + "\x00"
	err := r.tx.Range(bucketUserEmails, prefix, kv.PrefixEnd(prefix), limit, func(k string, _ []byte) error {
		ids = append(ids, k[len(prefix):])
		return nil
	})
	return ids, err
}

// Range calls fn with up to n users, in the order of their ids, from the
// id from on.
func (r UserReader) Range(from string, n int, fn func(id string, u *User) error) error {
	return r.tx.Range(bucketUsers, from, "", n, func(id string, v []byte) error {
		u := new(User)
		if err := json.Unmarshal(v, u); err != nil {
			return fmt.Errorf("%s %q: %w", bucketUsers, id, err)
		}
		return fn(id, u)
	})
}

// HasUsersFrom reports whether a user's id is from or after it.
func (r UserReader) HasUsersFrom(from string) (bool, error) {
	more := false
	err := r.tx.Range(bucketUsers, from, "", 1, func(string, []byte) error { more = true; return nil })
	return more, err
}
