package store

import (
	"testing"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// What the tests of package store_test (server_test.go), which run the
// whole server, read and write beneath the API: the token tables' indexes
// and the layout of an earlier version.

// TokenRequest is a request of client c whose tokens expire at exp.
var TokenRequest = tokenRequest

// CheckTables checks every token table's indexes against its entries
// (tableIndexes) and returns how many entries each holds, by bucket.
func CheckTables(t *testing.T, s *Store) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, tt := range []*tokenTable{s.codes, s.pkce, s.oidc, s.access, s.refresh} {
		n[tt.bucket] = len(tableIndexes(t, tt))
	}
	return n
}

// WriteLegacyAccessToken stores r as the access token of signature sig as
// a version before the lean access tokens did: the whole request, by the
// signature itself, in "access", with its request index in "access-req"
// and no expiry index.
func WriteLegacyAccessToken(s *Store, sig string, r fosite.Requester, exp time.Time) error {
	sr, err := toStored(r)
	if err != nil {
		return err
	}
	return s.Update(func(tx kv.Tx) error {
		if err := PutJSON(tx, bucketLegacyAccess, sig, tokenEntry{Req: &sr, Active: true, Expires: exp}); err != nil {
			return err
		}
		return tx.Put(bucketLegacyAccess+"-req", sigKey(sr.ID, sig), []byte{1})
	})
}

// Unmigrate empties what the migrations build and mark: the refresh
// tokens' expiry index, the users' index by e-mail, the marks.
func Unmigrate(s *Store) error {
	return s.Update(func(tx kv.Tx) error {
		for _, b := range []string{s.refresh.expiry, bucketUserEmails, bucketSchema} {
			if err := deleteAll(tx, b); err != nil {
				return err
			}
		}
		return nil
	})
}

func deleteAll(tx kv.Tx, bucket string) error {
	var keys []string
	if err := tx.Scan(bucket, "", func(k string, _ []byte) error { keys = append(keys, k); return nil }); err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(bucket, k); err != nil {
			return err
		}
	}
	return nil
}

// LegacyLeft returns what is left in the buckets of the earlier access
// tokens, as bucket/key.
func LegacyLeft(s *Store) ([]string, error) {
	var left []string
	err := s.View(func(tx kv.Tx) error {
		for _, b := range []string{bucketLegacyAccess, bucketLegacyAccess + "-req"} {
			if err := tx.Scan(b, "", func(k string, _ []byte) error { left = append(left, b+"/"+k); return nil }); err != nil {
				return err
			}
		}
		return nil
	})
	return left, err
}
