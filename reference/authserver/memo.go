package authserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// maxMemoized bounds each decodeMemo; a full memo starts again empty.
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
	copy func(T) T
	mu   sync.Mutex
	m    map[string]memoized[T]
}

type memoized[T any] struct {
	raw []byte
	v   T
}

func newDecodeMemo[T any](copy func(T) T) *decodeMemo[T] {
	return &decodeMemo[T]{copy: copy, m: make(map[string]memoized[T])}
}

// get decodes key of bucket into out, as getJSON does.
func (d *decodeMemo[T]) get(tx kv.Tx, bucket, key string, out *T) (bool, error) {
	raw, ok, err := tx.Get(bucket, key)
	if err != nil || !ok {
		return false, err
	}
	k := bucket + "\x00" + key
	d.mu.Lock()
	e, hit := d.m[k]
	d.mu.Unlock()
	if !hit || !bytes.Equal(e.raw, raw) {
		if err := json.Unmarshal(raw, &e.v); err != nil {
			return false, fmt.Errorf("%s %q: %w", bucket, key, err)
		}
		e.raw = bytes.Clone(raw)
		d.mu.Lock()
		if len(d.m) >= maxMemoized {
			clear(d.m)
		}
		d.m[k] = e
		d.mu.Unlock()
	}
	*out = e.v
	if d.copy != nil {
		*out = d.copy(e.v)
	}
	return true, nil
}
