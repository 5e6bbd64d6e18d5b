package kv

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// Memory is a Store in this process's memory.
type Memory struct {
	mu      sync.RWMutex
	buckets map[string]map[string][]byte
}

// NewMemory returns an empty memory store.
func NewMemory() *Memory { return &Memory{buckets: make(map[string]map[string][]byte)} }

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
				m.buckets[u.bucket][u.key] = u.value
			} else {
				delete(m.buckets[u.bucket], u.key)
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
		b = make(map[string][]byte)
		t.m.buckets[bucket] = b
	}
	old, had := b[key]
	t.undo = append(t.undo, undo{bucket, key, old, had})
	b[key] = slices.Clone(value)
	return nil
}

func (t *memTx) Delete(bucket, key string) error {
	if !t.writable {
		return ErrReadOnly
	}
	b := t.m.buckets[bucket]
	old, had := b[key]
	if !had {
		return nil
	}
	t.undo = append(t.undo, undo{bucket, key, old, had})
	delete(b, key)
	return nil
}

func (t *memTx) Scan(bucket, prefix string, fn func(string, []byte) error) error {
	return memView{t.m}.Scan(bucket, prefix, fn)
}

// memView is a read-only transaction of a Memory; the lock is held by View.
type memView struct{ m *Memory }

func (v memView) Get(bucket, key string) ([]byte, bool, error) {
	val, ok := v.m.buckets[bucket][key]
	return slices.Clone(val), ok, nil
}

func (v memView) Borrow(bucket, key string) ([]byte, bool, error) {
	val, ok := v.m.buckets[bucket][key]
	return val, ok, nil
}

func (memView) Put(string, string, []byte) error { return ErrReadOnly }
func (memView) Delete(string, string) error      { return ErrReadOnly }

func (v memView) Scan(bucket, prefix string, fn func(string, []byte) error) error {
	b := v.m.buckets[bucket]
	keys := make([]string, 0, len(b))
	for k := range b {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(k, slices.Clone(b[k])); err != nil {
			return err
		}
	}
	return nil
}
