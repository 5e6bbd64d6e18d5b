package store

import (
	"encoding/json"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

const (
	// bucketAccessTokens holds access tokens by the SHA-256 of their
	// signature (see tokenTable). Stores written before it kept them by the
	// signature itself, whole, in bucketLegacyAccess.
	bucketAccessTokens = "access-tokens"
	bucketLegacyAccess = "access"
	// bucketSchema records which migrations a store has had.
	bucketSchema = "schema"
	schemaTokens = "tokens"      // access tokens moved, every table's expiry index built
	schemaEmails = "user-emails" // bucketUserEmails built
	// migrateBatch is how many records one migration transaction rewrites.
	migrateBatch = 500
)

// Migrate brings a store written by an earlier version up to date, once, at
// start: it moves access tokens to bucketAccessTokens in their lean form,
// builds the expiry index of every other token table and the index of
// users by e-mail. Each step goes a batch per transaction and is marked done
// in bucketSchema at its end; one cut short (a crash) starts again at the
// next start and redoes nothing twice that would differ. A fresh store only
// gets the marks. Replicas of an earlier version must not write to the same
// PostgreSQL meanwhile: their access tokens would go to the old bucket.
func (s *Store) Migrate() error {
	done := func(step string) (bool, error) {
		var ok bool
		err := s.View(func(tx kv.Tx) (err error) {
			_, ok, err = tx.Get(bucketSchema, step)
			return err
		})
		return ok, err
	}
	mark := func(step string) error {
		return s.Update(func(tx kv.Tx) error { return tx.Put(bucketSchema, step, []byte("1")) })
	}
	if ok, err := done(schemaTokens); err != nil || !ok {
		if err != nil {
			return err
		}
		moved, err := s.moveLegacyAccessTokens()
		if err != nil {
			return err
		}
		indexed := 0
		for _, t := range []*tokenTable{s.codes, s.pkce, s.oidc, s.refresh} {
			n, err := s.indexExpiries(t)
			if err != nil {
				return err
			}
			indexed += n
		}
		if err := mark(schemaTokens); err != nil {
			return err
		}
		if moved+indexed > 0 {
			s.log.Info("store migrated: access tokens by digest, expiry index", "store", s.db.String(),
				"access_tokens_moved", moved, "entries_indexed", indexed)
		}
	}
	if ok, err := done(schemaEmails); err != nil || !ok {
		if err != nil {
			return err
		}
		n, err := s.indexUserEmails()
		if err != nil {
			return err
		}
		if err := mark(schemaEmails); err != nil {
			return err
		}
		if n > 0 {
			s.log.Info("store migrated: users indexed by e-mail", "store", s.db.String(), "users", n)
		}
	}
	return nil
}

// batches calls fn with the keys and values of bucket, migrateBatch at a
// time, each batch in its own transaction, and returns the sum of what fn
// counted. fn may write, and delete what it read: each batch starts past
// the last key of the one before.
func (s *Store) batches(bucket string, fn func(tx kv.Tx, keys []string, values [][]byte) (int, error)) (int, error) {
	from, total := "", 0
	for {
		var last string
		n, counted := 0, 0
		err := s.Update(func(tx kv.Tx) error {
			var keys []string
			var values [][]byte
			if err := tx.Range(bucket, from, "", migrateBatch, func(k string, v []byte) error {
				keys, values = append(keys, k), append(values, v)
				return nil
			}); err != nil {
				return err
			}
			if n = len(keys); n == 0 {
				return nil
			}
			last = keys[n-1]
			var err error
			counted, err = fn(tx, keys, values)
			return err
		})
		if err != nil {
			return total, err
		}
		total += counted
		if n < migrateBatch {
			return total, nil
		}
		from = last + "\x00" // the first key after last
	}
}

// moveLegacyAccessTokens rewrites the access tokens of bucketLegacyAccess
// (a whole fosite request each, by signature) as lean entries by digest,
// with their expiry index, and deletes them and their index there; expired
// ones are only deleted.
func (s *Store) moveLegacyAccessTokens() (int, error) {
	t, now := s.access, time.Now()
	moved, err := s.batches(bucketLegacyAccess, func(tx kv.Tx, sigs []string, values [][]byte) (int, error) {
		n := 0
		for i, sig := range sigs {
			var e tokenEntry
			if err := json.Unmarshal(values[i], &e); err != nil || e.Req == nil {
				s.log.Warn("store migration: dropping an unreadable access token", "err", err)
			} else if e.Expires.IsZero() || e.Expires.After(now) {
				e.Access, e.Req = leanOf(e.Req), nil
				key := t.key(sig)
				if err := t.remove(tx, key); err != nil {
					return n, err
				}
				if err := t.write(tx, key, e); err != nil {
					return n, err
				}
				n++
			}
			if err := tx.Delete(bucketLegacyAccess, sig); err != nil {
				return n, err
			}
		}
		return n, nil
	})
	if err != nil {
		return moved, err
	}
	_, err = s.batches(bucketLegacyAccess+"-req", func(tx kv.Tx, keys []string, _ [][]byte) (int, error) {
		for _, k := range keys {
			if err := tx.Delete(bucketLegacyAccess+"-req", k); err != nil {
				return 0, err
			}
		}
		return 0, nil
	})
	return moved, err
}

// indexExpiries adds the expiry index entry of every entry of t.
func (s *Store) indexExpiries(t *tokenTable) (int, error) {
	return s.batches(t.bucket, func(tx kv.Tx, keys []string, values [][]byte) (int, error) {
		n := 0
		for i, key := range keys {
			var e struct {
				Req     struct{ ID string } `json:"req"`
				Expires time.Time           `json:"expires"`
			}
			if json.Unmarshal(values[i], &e) != nil || e.Expires.IsZero() {
				continue // never swept, as before the index
			}
			if err := tx.Put(t.expiry, expiryKey(e.Expires, key), expiryValue(e.Req.ID)); err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	})
}

// indexUserEmails adds every user to bucketUserEmails.
func (s *Store) indexUserEmails() (int, error) {
	return s.batches(bucketUsers, func(tx kv.Tx, ids []string, values [][]byte) (int, error) {
		n := 0
		for i, id := range ids {
			var u struct{ Email string }
			if json.Unmarshal(values[i], &u) != nil {
				continue
			}
			if err := tx.Put(bucketUserEmails, emailKey(u.Email, id), []byte{1}); err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	})
}
