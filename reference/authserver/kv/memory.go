package kv

import (
	"context"
	"slices"
	"sync"
)

// Memory is a Store in this process's memory.
type Memory struct {
	mu      sync.RWMutex
	buckets map[string]*memBucket
}

// memBucket is a bucket's values by key, and its keys in order for Range.
type memBucket struct {
	values map[string][]byte
	keys   orderedKeys
}

func (b *memBucket) set(key string, value []byte) {
	if _, had := b.values[key]; !had {
		b.keys.insert(key)
	}
	b.values[key] = value
}

func (b *memBucket) delete(key string) {
	if _, had := b.values[key]; had {
		b.keys.delete(key)
		delete(b.values, key)
	}
}

// NewMemory returns an empty memory store.
func NewMemory() *Memory { return &Memory{buckets: make(map[string]*memBucket)} }

func (m *Memory) String() string { return "memory" }
func (m *Memory) Close() error   { return nil }

// View runs fn with a memView: one pointer, so making it a Tx allocates
// nothing (check_token reads the store several times a request).
func (m *Memory) View(_ context.Context, fn func(Tx) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return fn(memView{m})
}

// Update holds the write lock for the whole transaction and undoes its
// writes when fn fails.
func (m *Memory) Update(_ context.Context, fn func(Tx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := &memTx{m: m, writable: true}
	err := fn(tx)
	if err != nil {
		for i := len(tx.undo) - 1; i >= 0; i-- {
			u := tx.undo[i]
			if u.had {
				m.buckets[u.bucket].set(u.key, u.value)
			} else {
				m.buckets[u.bucket].delete(u.key)
			}
		}
	}
	return err
}

type memTx struct {
	m        *Memory
	writable bool
	undo     []undo
}

type undo struct {
	bucket, key string
	value       []byte
	had         bool
}

func (t *memTx) Get(bucket, key string) ([]byte, bool, error) { return memView{t.m}.Get(bucket, key) }

// Borrow returns the stored slice itself: Put stores a copy and never
// changes a stored slice, so it stays as it is even after the transaction.
func (t *memTx) Borrow(bucket, key string) ([]byte, bool, error) {
	return memView{t.m}.Borrow(bucket, key)
}

func (t *memTx) Put(bucket, key string, value []byte) error {
	if !t.writable {
		return ErrReadOnly
	}
	if len(value) == 0 {
		return errEmptyValue
	}
	b := t.m.buckets[bucket]
	if b == nil {
		b = &memBucket{values: make(map[string][]byte)}
		t.m.buckets[bucket] = b
	}
	old, had := b.values[key]
	t.undo = append(t.undo, undo{bucket, key, old, had})
	b.set(key, slices.Clone(value))
	return nil
}

func (t *memTx) Delete(bucket string, keys ...string) error {
	if !t.writable {
		return ErrReadOnly
	}
	b := t.m.buckets[bucket]
	if b == nil {
		return nil
	}
	for _, key := range keys {
		if old, had := b.values[key]; had {
			t.undo = append(t.undo, undo{bucket, key, old, had})
			b.delete(key)
		}
	}
	return nil
}

func (t *memTx) Scan(bucket, prefix string, fn func(string, []byte) error) error {
	return memView{t.m}.Scan(bucket, prefix, fn)
}

func (t *memTx) Range(bucket, start, end string, limit int, fn func(string, []byte) error) error {
	return memView{t.m}.Range(bucket, start, end, limit, fn)
}

// memView is a read-only transaction of a Memory; the lock is held by View.
type memView struct{ m *Memory }

func (v memView) Get(bucket, key string) ([]byte, bool, error) {
	val, ok, err := v.Borrow(bucket, key)
	return slices.Clone(val), ok, err
}

func (v memView) Borrow(bucket, key string) ([]byte, bool, error) {
	b := v.m.buckets[bucket]
	if b == nil {
		return nil, false, nil
	}
	val, ok := b.values[key]
	return val, ok, nil
}

func (memView) Put(string, string, []byte) error { return ErrReadOnly }
func (memView) Delete(string, ...string) error   { return ErrReadOnly }

func (v memView) Scan(bucket, prefix string, fn func(string, []byte) error) error {
	return v.Range(bucket, prefix, PrefixEnd(prefix), 0, fn)
}

// Range collects the keys first: a write by fn cannot disturb the walk.
func (v memView) Range(bucket, start, end string, limit int, fn func(string, []byte) error) error {
	b := v.m.buckets[bucket]
	if b == nil {
		return nil
	}
	for _, k := range b.keys.collect(start, end, limit) {
		val, ok := b.values[k]
		if !ok {
			continue // deleted by fn
		}
		if err := fn(k, slices.Clone(val)); err != nil {
			return err
		}
	}
	return nil
}
