package fortune

import (
	"time"
)

// jwtCacheSize bounds the verified JWTs kept: a client calls again and
// again with the same token, and verifying its RS256 signature each time
// was most of the cost of a request.
const jwtCacheSize = 4096

// newVerifiedCache keeps the tokens a jwtValidator accepted until their
// exp, and never past it: a cached token is refused at the very second the
// uncached check would refuse it. It changes nothing else: JWT validation
// cannot see revocation either way, and the audience and scope are checked
// on every request by the server. It is check_token's cache (cachedValidator)
// with exp as the only limit.
func newVerifiedCache(next validator, size int, now func() time.Time) *cachedValidator {
	return newCachedValidator(next, size, untilExp, now)
}
