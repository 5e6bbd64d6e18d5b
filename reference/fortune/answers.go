package fortune

import (
	"bytes"
	"encoding/json"
	"hash/maphash"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// maxDecodedAnswers bounds decodedAnswers; the least recently used goes first.
const maxDecodedAnswers = 1024

// maxDecodedAnswerBytes bounds the answers decodedAnswers keeps (check_token's
// are about 1 KiB), so that it holds at most 4 MiB whatever a server answers;
// a larger answer is decoded every time.
const maxDecodedAnswerBytes = 4 << 10

// decodedAnswers remembers the decodings of check_token's last answers by
// their bytes. Without a cache the service still asks about every token
// on every request, and uses the answer it gets; only the decoding of an
// answer it already decoded is saved (a tenth of the service's CPU). The
// decodings are shared: read them, never change them (as the cache's).
type decodedAnswers struct {
	seed  maphash.Seed
	cache *lru.Cache[uint64, decodedAnswer]
}

// decodedAnswer is an answer's bytes, kept to tell it from another of the
// same hash, and its decoding.
type decodedAnswer struct {
	body []byte
	info *tokenInfo
}

func newDecodedAnswers() *decodedAnswers {
	return &decodedAnswers{seed: maphash.MakeSeed(), cache: lru.New[uint64, decodedAnswer](maxDecodedAnswers)}
}

// decode is json.Unmarshal of a 200 answer into a tokenInfo. It keeps
// body, which the caller must not change.
func (d *decodedAnswers) decode(body []byte) (*tokenInfo, error) {
	key := maphash.Bytes(d.seed, body)
	if e, ok := d.cache.Get(key, lru.Never); ok && bytes.Equal(e.body, body) {
		return e.info, nil
	}
	info := new(tokenInfo)
	if err := json.Unmarshal(body, info); err != nil {
		return nil, err
	}
	if len(body) <= maxDecodedAnswerBytes {
		d.cache.Add(key, decodedAnswer{body: body, info: info}, lru.Never)
	}
	return info, nil
}
