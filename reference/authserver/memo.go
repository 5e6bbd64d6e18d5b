package authserver

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
// authorization server's time under check_token load. copy, when set, gives
// each caller a value of its own (slices included), so callers may still
// change what they get.
type decodeMemo[T any] struct {
	copy  func(T) T
	cache *lru.Cache[memoKey, memoized[T]]
}

type memoKey struct{ bucket, key string }

type memoized[T any] struct {
	raw []byte
	v   T
}

func newDecodeMemo[T any](copy func(T) T) *decodeMemo[T] {
	return &decodeMemo[T]{copy: copy, cache: lru.New[memoKey, memoized[T]](maxMemoized)}
}

// get decodes key of bucket into out, as getJSON does.
func (d *decodeMemo[T]) get(tx kv.Tx, bucket, key string, out *T) (bool, error) {
	raw, ok, err := tx.Get(bucket, key)
	if err != nil || !ok {
		return false, err
	}
	k := memoKey{bucket, key}
	e, hit := d.cache.Get(k, lru.Never)
	if !hit || !bytes.Equal(e.raw, raw) {
		if err := json.Unmarshal(raw, &e.v); err != nil {
			return false, fmt.Errorf("%s %q: %w", bucket, key, err)
		}
		e.raw = bytes.Clone(raw)
		d.cache.Add(k, e, lru.Never)
	}
	*out = e.v
	if d.copy != nil {
		*out = d.copy(e.v)
	}
	return true, nil
}
