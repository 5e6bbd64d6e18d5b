package accounts

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// maxSecretBytes is bcrypt's limit: longer secrets are refused at
// registration rather than silently truncated.
const maxSecretBytes = 72

// maxMatchedSecrets bounds the memo of Hasher.
const maxMatchedSecrets = 4096

var (
	errSecretTooLong = errors.New("secret longer than 72 bytes")
	errSecretMatch   = errors.New("secret does not match")
)

// Hasher is fosite's Hasher of client secrets, and the hash of users'
// passwords: bcrypt, plus a memo of the secret that
// last matched each hash. A resource server authenticates on every
// check_token call, and bcrypt's deliberate cost (tens of milliseconds)
// would bound the fortune service's throughput; with the memo only the first
// call pays it. A secret that never matched always goes through bcrypt, so
// guessing stays as slow as bcrypt makes it.
type Hasher struct {
	cost    int
	mu      sync.Mutex
	matched map[string][sha256.Size]byte // bcrypt hash -> SHA-256 of the secret
}

// NewHasher hashes at bcrypt's cost.
func NewHasher(cost int) *Hasher {
	return &Hasher{cost: cost, matched: make(map[string][sha256.Size]byte)}
}

// Hash returns the bcrypt hash of secret.
func (h *Hasher) Hash(_ context.Context, secret []byte) ([]byte, error) {
	if len(secret) > maxSecretBytes {
		return nil, errSecretTooLong
	}
	return bcrypt.GenerateFromPassword(secret, h.cost)
}

// Compare returns nil when secret matches hash.
func (h *Hasher) Compare(_ context.Context, hash, secret []byte) error {
	if len(hash) == 0 || len(secret) > maxSecretBytes {
		return errSecretMatch
	}
	sum := sha256.Sum256(secret)
	h.mu.Lock()
	known, ok := h.matched[string(hash)]
	h.mu.Unlock()
	if ok && subtle.ConstantTimeCompare(known[:], sum[:]) == 1 {
		return nil
	}
	if bcrypt.CompareHashAndPassword(hash, secret) != nil {
		return errSecretMatch
	}
	h.mu.Lock()
	if len(h.matched) >= maxMatchedSecrets {
		clear(h.matched)
	}
	h.matched[string(hash)] = sum
	h.mu.Unlock()
	return nil
}
