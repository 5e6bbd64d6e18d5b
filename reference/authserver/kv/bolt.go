package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Bolt is a Store in one bbolt file. Only one process may open the file at
// a time (it is locked).
type Bolt struct {
	db   *bolt.DB
	path string
}

// OpenBolt opens (or creates) the store file at path, creating its
// directory. Every error names the path: a directory that cannot be written,
// a file that is not a store or is damaged, a file another process holds.
func OpenBolt(path string) (*Bolt, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store %s: cannot create its directory: %w", path, err)
	}
	db, err := openBolt(path)
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("store %s: in use by another process (only one authorization server may use a data directory; use PostgreSQL for replicas)", path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, fmt.Errorf("store %s: the file is damaged or not a store (%v); move it away to start empty", path, err)
	case err != nil:
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	// A file whose pages are damaged past the meta pages opens; check it.
	if err := checkBolt(db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store %s: the file is damaged (%v); move it away to start empty", path, err)
	}
	return &Bolt{db: db, path: path}, nil
}

// openBolt opens the file; bbolt panics on some damaged files.
func openBolt(path string) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %v", berrors.ErrInvalid, r)
		}
	}()
	return bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
}

// checkBolt reads every page of the file.
func checkBolt(db *bolt.DB) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return db.View(func(tx *bolt.Tx) error {
		for cerr := range tx.Check() {
			return cerr
		}
		return nil
	})
}

func (b *Bolt) String() string { return b.path }
func (b *Bolt) Close() error   { return b.db.Close() }

func (b *Bolt) View(_ context.Context, fn func(Tx) error) error {
	return b.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (b *Bolt) Update(_ context.Context, fn func(Tx) error) error {
	return b.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) Get(bucket, key string) ([]byte, bool, error) {
	v, ok, err := t.Borrow(bucket, key)
	return slices.Clone(v), ok, err // v is only valid during the transaction
}

func (t boltTx) Borrow(bucket, key string) ([]byte, bool, error) {
	bk := t.tx.Bucket([]byte(bucket))
	if bk == nil {
		return nil, false, nil
	}
	v := bk.Get([]byte(key))
	return v, v != nil, nil
}

func (t boltTx) Put(bucket, key string, value []byte) error {
	if !t.tx.Writable() {
		return ErrReadOnly
	}
	if len(value) == 0 {
		return errEmptyValue
	}
	bk, err := t.tx.CreateBucketIfNotExists([]byte(bucket))
	if err != nil {
		return err
	}
	return bk.Put([]byte(key), value)
}

func (t boltTx) Delete(bucket string, keys ...string) error {
	if !t.tx.Writable() {
		return ErrReadOnly
	}
	bk := t.tx.Bucket([]byte(bucket))
	if bk == nil {
		return nil
	}
	for _, k := range keys {
		if err := bk.Delete([]byte(k)); err != nil {
			return err
		}
	}
	return nil
}

func (t boltTx) Scan(bucket, prefix string, fn func(string, []byte) error) error {
	return t.Range(bucket, prefix, PrefixEnd(prefix), 0, fn)
}

// Range walks bbolt's B+tree with a cursor: a seek, then one step per key.
func (t boltTx) Range(bucket, start, end string, limit int, fn func(string, []byte) error) error {
	bk := t.tx.Bucket([]byte(bucket))
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	stop := []byte(end)
	n := 0
	for k, v := c.Seek([]byte(start)); k != nil && (end == "" || bytes.Compare(k, stop) < 0) && (limit <= 0 || n < limit); k, v = c.Next() {
		n++
		if err := fn(string(k), slices.Clone(v)); err != nil {
			return err
		}
	}
	return nil
}
