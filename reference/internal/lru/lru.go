// Package lru is a small least-recently-used cache whose entries may also
// expire. The fortune service keeps check_token answers in it, the greeting
// client its sessions, the configuration server its parsed files and
// environments: all must stay bounded in memory whatever callers send, and
// none may serve an entry past its deadline.
package lru

import (
	"container/list"
	"sync"
	"time"
)

// Cache holds at most a fixed number of entries; adding one more drops the
// least recently used. It is safe for concurrent use. Time is passed in by
// the caller, so that callers and tests choose their clock.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	limit int
	order *list.List // of *entry[K, V], most recently used first
	items map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key     K
	value   V
	expires time.Time
}

// Never is the expiry of an entry that only eviction removes.
var Never time.Time

// New returns a cache of at most limit entries (at least one).
func New[K comparable, V any](limit int) *Cache[K, V] {
	return &Cache[K, V]{limit: max(limit, 1), order: list.New(), items: make(map[K]*list.Element)}
}

// Get returns the value of key unless it is missing or expired at now; an
// expired entry is dropped. A hit makes the entry the most recently used.
func (c *Cache[K, V]) Get(key K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if !e.expires.IsZero() && !now.Before(e.expires) {
		c.remove(el)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// Touch is Get that also moves the entry's deadline to expires: a
// session kept alive by use. Unlike a Get then an Add, it cannot bring back
// an entry that was removed in between.
func (c *Cache[K, V]) Touch(key K, now, expires time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if !now.Before(e.expires) {
		c.remove(el)
		return zero, false
	}
	e.expires = expires
	c.order.MoveToFront(el)
	return e.value, true
}

// Add stores value under key until expires, replacing any earlier value,
// and drops the least recently used entry when the cache is full. Never
// (the zero time) keeps an entry until it is the least recently used: for
// values named by their content, such as a git object by its hash.
func (c *Cache[K, V]) Add(key K, value V, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		e := el.Value.(*entry[K, V])
		e.value, e.expires = value, expires
		c.order.MoveToFront(el)
		return
	}
	if c.order.Len() >= c.limit {
		c.remove(c.order.Back())
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key: key, value: value, expires: expires})
}

// Remove drops key, if present.
func (c *Cache[K, V]) Remove(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
}

// Len is the number of entries, expired ones not yet dropped included.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// remove drops el; c.mu is held.
func (c *Cache[K, V]) remove(el *list.Element) {
	c.order.Remove(el)
	delete(c.items, el.Value.(*entry[K, V]).key)
}
