package fortune

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// cachedValidator keeps the positive answers of another validator
// (check_token) for a while, so that a client that calls again and again
// with one token costs one call to the authorization server per TTL. Refusals are
// not kept: an attacker's stream of bad tokens would only push good
// entries out. Entries are found by the token's SHA-256, so the cache holds
// no usable token.
type cachedValidator struct {
	next  validator
	cache *lru.Cache[[sha256.Size]byte, *tokenInfo]
	ttl   time.Duration
	now   func() time.Time
}

func newCachedValidator(next validator, size int, ttl time.Duration, now func() time.Time) *cachedValidator {
	return &cachedValidator{next: next, cache: lru.New[[sha256.Size]byte, *tokenInfo](size), ttl: ttl, now: now}
}

func (c *cachedValidator) validate(ctx context.Context, token string) (*tokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	if info, ok := c.cache.Get(key, c.now()); ok {
		return info, nil
	}
	info, err := c.next.validate(ctx, token)
	if err != nil {
		return nil, err
	}
	now := c.now()
	expires := now.Add(c.ttl)
	if info.Exp > 0 {
		expires = minTime(expires, time.Unix(info.Exp, 0))
	}
	if expires.After(now) {
		c.cache.Add(key, info, expires)
	}
	return info, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
