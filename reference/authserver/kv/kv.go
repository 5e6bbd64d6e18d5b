// Package kv is the authorization server's storage: named buckets of keys
// and values, read and written in transactions. Three implementations share
// one contract (kvtest_test.go runs it against each):
//
//   - Memory: this process only, lost at exit (tests, and `serve` without
//     --data or --store).
//   - Bolt: one file in a data directory (go.etcd.io/bbolt), for one process;
//     what `reference up --data DIR` uses. Every committed transaction is on
//     disk (fsync) before Update returns, and a crash never leaves the file
//     unreadable (copy-on-write pages, two meta pages with checksums).
//   - Postgres: a PostgreSQL database shared by several replicas of the
//     server behind a load balancer. Transactions are serializable and
//     retried on conflict.
package kv

import (
	"context"
	"errors"
)

// Store is a transactional key-value store.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction and commits it when fn
	// returns nil; an error rolls every write of fn back. fn may run more
	// than once (a conflicting concurrent transaction is retried), so it
	// must not have effects outside the transaction.
	Update(ctx context.Context, fn func(Tx) error) error
	// String names the store for logs and errors: its path or URL (without
	// a password).
	String() string
	Close() error
}

// Tx is one transaction. Bucket names are text; keys are any bytes (NUL
// included) and sort bytewise; values are opaque bytes, never empty.
type Tx interface {
	// Get returns the value of key in bucket; ok is false when absent.
	Get(bucket, key string) (value []byte, ok bool, err error)
	// Borrow is Get without Get's copy, for reads on every request that
	// only compare or decode the value: it is the store's own, valid until
	// the transaction ends, and must not be changed.
	Borrow(bucket, key string) (value []byte, ok bool, err error)
	// Put sets key to value (not empty); only in Update.
	Put(bucket, key string, value []byte) error
	// Delete removes keys (absent ones are not an error); only in Update.
	// Many keys go in one statement to PostgreSQL (a sweep of expired
	// tokens deletes hundreds).
	Delete(bucket string, keys ...string) error
	// Scan calls fn for every key of bucket that starts with prefix, in
	// byte order of the keys. fn must not write to the transaction; collect
	// keys and write after Scan returns.
	Scan(bucket, prefix string, fn func(key string, value []byte) error) error
	// Range calls fn for the keys of bucket from start (included) to end
	// (excluded; "" for the end of the bucket) in byte order, at most limit
	// of them (limit <= 0: all). Each store reads only the keys it passes
	// to fn, through its ordered index, so an index bucket (an expiry, a
	// name) is read a batch at a time whatever its size. fn must not write
	// to the transaction, as in Scan.
	Range(bucket, start, end string, limit int, fn func(key string, value []byte) error) error
}

// PrefixEnd is the first key after every key that starts with prefix, for
// Range: "" when there is none (prefix is empty or all 0xff bytes).
func PrefixEnd(prefix string) string {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xff {
			return prefix[:i] + string([]byte{prefix[i] + 1})
		}
	}
	return ""
}

// InProcess reports whether s keeps its data in this process (Memory, Bolt):
// its transactions wait on no network and ignore their context, so callers
// need not pay for a deadline on every read.
func InProcess(s Store) bool {
	switch s.(type) {
	case *Memory, *Bolt:
		return true
	}
	return false
}

// ErrReadOnly is returned by writes in a View transaction.
var ErrReadOnly = errors.New("kv: write in a read-only transaction")

// errEmptyValue refuses an empty value, which not every store can tell from
// an absent one.
var errEmptyValue = errors.New("kv: empty value")
