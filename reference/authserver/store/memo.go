package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// maxMemoized bounds each decodeMemo; the least recently read record goes first.
const maxMemoized = 4096

// decodeMemo keeps the last decoding of the records check_token reads on
// every call (the clients, the state of an access token). The record is
// still read from the store each time, and decoded again whenever its bytes
// differ from the ones remembered: a replica's write is seen at the next
// read, as without the memo. Only json.Unmarshal is saved, a third of the
// authorization server's time under check_token load.
//
// A decoding is shared by every caller and never changed: a new one
// replaces it when the bytes change. Callers that change what they get
// copy it first (store.client).
type decodeMemo[T any] struct {
	cache *lru.Cache[memoKey, memoized[T]]
}

type memoKey struct{ bucket, key string }

type memoized[T any] struct {
	raw []byte
	v   *T
}

func newDecodeMemo[T any]() *decodeMemo[T] {
	return &decodeMemo[T]{cache: lru.New[memoKey, memoized[T]](maxMemoized)}
}

// get decodes key of bucket, as GetJSON does, into a value shared by every
// caller: read it, never change it.
func (d *decodeMemo[T]) get(tx kv.Tx, bucket, key string) (*T, bool, error) {
	raw, ok, err := tx.Borrow(bucket, key)
	if err != nil || !ok {
		return nil, false, err
	}
	k := memoKey{bucket, key}
	if e, hit := d.cache.Get(k, lru.Never); hit && bytes.Equal(e.raw, raw) {
		return e.v, true, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, false, fmt.Errorf("%s %q: %w", bucket, key, err)
	}
	d.cache.Add(k, memoized[T]{raw: bytes.Clone(raw), v: v}, lru.Never)
	return v, true, nil
}
