package fortune

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// jwtCacheSize bounds the verified JWTs kept: a client calls again and
// again with the same token, and verifying its RS256 signature each time
// was most of the cost of a request.
const jwtCacheSize = 4096

// verifiedCache keeps the tokens a jwtValidator accepted until their exp,
// and never past it: a cached token is refused at the very second the
// uncached check would refuse it. It changes nothing else: JWT validation
// cannot see revocation either way, and the audience and scope are checked
// on every request by the server. Refusals are not kept, so a stream of
// bad tokens cannot push good ones out. Entries are found by the token's
// SHA-256, so the cache holds no usable token.
type verifiedCache struct {
	next  validator
	cache *lru.Cache[[sha256.Size]byte, *tokenInfo]
	now   func() time.Time
}

func newVerifiedCache(next validator, size int, now func() time.Time) *verifiedCache {
	return &verifiedCache{next: next, cache: lru.New[[sha256.Size]byte, *tokenInfo](size), now: now}
}

func (c *verifiedCache) validate(ctx context.Context, token string) (*tokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	if info, ok := c.cache.Get(key, c.now()); ok {
		return info, nil
	}
	info, err := c.next.validate(ctx, token)
	if err != nil {
		return nil, err
	}
	// A verified token always has an exp (check refuses one without).
	if exp := time.Unix(info.Exp, 0); info.Exp > 0 && c.now().Before(exp) {
		c.cache.Add(key, info, exp)
	}
	return info, nil
}
