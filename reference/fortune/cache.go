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
	if now := c.now(); c.expiry(info, now).After(now) {
		c.cache.Add(key, info, c.expiry(info, now))
	}
	return info, nil
}

// untilExp as a TTL keeps an answer until its token's exp, and a token without exp not at all.
const untilExp time.Duration = -1

// expiry is when a kept answer goes: after the TTL, and never past the token's exp; the zero time (never
// after now) when it is not to be kept.
func (c *cachedValidator) expiry(info *tokenInfo, now time.Time) time.Time {
	var expires time.Time
	if c.ttl != untilExp {
		expires = now.Add(c.ttl)
	}
	if info.Exp > 0 && (expires.IsZero() || time.Unix(info.Exp, 0).Before(expires)) {
		expires = time.Unix(info.Exp, 0)
	}
	return expires
}
