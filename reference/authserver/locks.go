package authserver

import "sync"

// keyedLocks serializes work on one key (an authorization code, a refresh
// token) without a lock per key: two exchanges of the same code must not
// both pass fosite's "is it used?" check before either marks it used.
type keyedLocks struct{ shards [64]sync.Mutex }

func newKeyedLocks() *keyedLocks { return &keyedLocks{} }

// lock locks key's shard and returns its unlock.
func (l *keyedLocks) lock(key string) func() {
	m := &l.shards[fnv32(key)%uint32(len(l.shards))]
	m.Lock()
	return m.Unlock
}

// fnv32 is FNV-1a, inline to keep the hot path free of allocations.
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
