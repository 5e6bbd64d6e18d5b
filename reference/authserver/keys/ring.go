package keys

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v3/jwt"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
)

// bucketKeys holds the signing keys and fosite's HMAC secret.
const bucketKeys = "keys"

// Ring holds the signing keys, kept in the store's "keys" bucket so
// that tokens survive a restart and every replica signs and verifies with
// the same keys. The newest key signs. With rotation on, a key older than
// the rotation period is replaced by a new one; the previous keys stay in
// the JWKS and keep verifying until every token they signed has expired
// (their successor's creation plus the token lifetime).
type Ring struct {
	// Now is the clock of rotation and expiry (time.Now); tests move it.
	Now func() time.Time

	s        *store.Store
	log      *slog.Logger
	rotate   time.Duration // 0: never
	tokenTTL time.Duration // the longest lifetime of a signed token

	mu     sync.RWMutex
	keys   []*Key    // newest first
	loaded time.Time // when keys were last read from the store
}

// storedKey is a signing key in the store, by "rsa/<created, ns>".
type storedKey struct {
	PEM     string    `json:"pem"` // PKCS #8 private key
	Created time.Time `json:"created"`
}

// reloadEvery bounds how often an unknown kid or a due rotation reads the
// store again.
const reloadEvery = time.Second

// Open loads the keys of s, creating the first one (or adopting given as
// the newest) when needed. With rotate set, a key older than rotate is
// replaced; a replaced key stays (verifies, and is published) for
// tokenTTL, the longest lifetime of what it signed. log receives the
// rotations and the failures to rotate or reload.
func Open(s *store.Store, given *rsa.PrivateKey, rotate, tokenTTL time.Duration, log *slog.Logger) (*Ring, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Ring{Now: time.Now, s: s, log: log, rotate: rotate, tokenTTL: tokenTTL}
	if given != nil {
		k, err := newKey(given)
		if err != nil {
			return nil, err
		}
		if err := r.adopt(k); err != nil {
			return nil, err
		}
	}
	if err := r.Reload(); err != nil {
		return nil, err
	}
	if len(r.keys) == 0 || r.due() {
		if err := r.rotateNow(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func keyName(created time.Time) string { return fmt.Sprintf("rsa/%020d", created.UnixNano()) }

// adopt stores k as the newest key unless the store already has it.
func (r *Ring) adopt(k *Key) error {
	der, err := x509.MarshalPKCS8PrivateKey(k.private)
	if err != nil {
		return err
	}
	return r.s.Update(func(tx kv.Tx) error {
		newest, err := readKeys(tx)
		if err != nil {
			return err
		}
		if len(newest) > 0 && newest[0].kid == k.kid {
			return nil
		}
		created := r.Now().UTC()
		if len(newest) > 0 && !created.After(newest[0].created) {
			created = newest[0].created.Add(time.Nanosecond)
		}
		k.created = created
		return store.PutJSON(tx, bucketKeys, keyName(created), storedKey{
			PEM:     string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
			Created: created,
		})
	})
}

// readKeys decodes the stored keys, newest first.
func readKeys(tx kv.Tx) ([]*Key, error) {
	var keys []*Key
	err := tx.Scan(bucketKeys, "rsa/", func(name string, v []byte) error {
		var sk storedKey
		if err := json.Unmarshal(v, &sk); err != nil {
			return fmt.Errorf("signing key %s: %w", name, err)
		}
		block, _ := pem.Decode([]byte(sk.PEM))
		if block == nil {
			return fmt.Errorf("signing key %s: no PEM block", name)
		}
		pk, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return fmt.Errorf("signing key %s: %w", name, err)
		}
		rk, ok := pk.(*rsa.PrivateKey)
		if !ok {
			return fmt.Errorf("signing key %s: not an RSA key", name)
		}
		k, err := newKey(rk)
		if err != nil {
			return err
		}
		k.created = sk.Created
		keys = append(keys, k)
		return nil
	})
	slices.Reverse(keys) // names sort by creation
	return keys, err
}

// Reload reads the keys again and drops (from memory and store) those
// whose tokens have all expired.
func (r *Ring) Reload() error {
	var keys []*Key
	err := r.s.Update(func(tx kv.Tx) error {
		var err error
		if keys, err = readKeys(tx); err != nil {
			return err
		}
		for i := 1; i < len(keys); i++ {
			if r.Now().After(keys[i-1].created.Add(r.tokenTTL + time.Minute)) {
				for _, old := range keys[i:] {
					if err := tx.Delete(bucketKeys, keyName(old.created)); err != nil {
						return err
					}
				}
				keys = keys[:i]
				break
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("authserver: reading the signing keys from %s: %w", r.s, err)
	}
	r.mu.Lock()
	r.keys, r.loaded = keys, r.Now()
	r.mu.Unlock()
	return nil
}

// due reports whether the newest key is older than the rotation period.
func (r *Ring) due() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rotate > 0 && len(r.keys) > 0 && r.Now().Sub(r.keys[0].created) >= r.rotate
}

// rotateNow makes a new key the newest, unless another replica just did.
func (r *Ring) rotateNow() error {
	pk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("authserver: generating a signing key: %w", err)
	}
	k, err := newKey(pk)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(pk)
	if err != nil {
		return err
	}
	err = r.s.Update(func(tx kv.Tx) error {
		keys, err := readKeys(tx)
		if err != nil {
			return err
		}
		created := r.Now().UTC()
		if len(keys) > 0 && (r.rotate == 0 || created.Sub(keys[0].created) < r.rotate) {
			return nil // another replica rotated
		}
		return store.PutJSON(tx, bucketKeys, keyName(created), storedKey{
			PEM:     string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
			Created: created,
		})
	})
	if err != nil {
		return fmt.Errorf("authserver: storing a signing key in %s: %w", r.s, err)
	}
	r.log.Info("signing key rotated", "kid", k.kid)
	return r.Reload()
}

// Current is the key that signs now; it rotates first when due.
func (r *Ring) Current() *Key {
	if r.due() {
		r.mu.RLock()
		stale := r.Now().Sub(r.loaded) >= reloadEvery
		r.mu.RUnlock()
		if stale {
			if err := r.rotateNow(); err != nil {
				r.log.Error("rotating the signing key failed; the old one keeps signing", "err", err)
			}
		}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.keys[0]
}

// All returns the keys of the JWKS, newest first.
func (r *Ring) All() []*Key {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.keys)
}

// byKid finds a key; an unknown kid reads the store again (another replica
// may have rotated), at most once per reloadEvery.
func (r *Ring) byKid(kid string) *Key {
	find := func() *Key {
		r.mu.RLock()
		defer r.mu.RUnlock()
		for _, k := range r.keys {
			if k.kid == kid || kid == "" {
				return k
			}
		}
		return nil
	}
	if k := find(); k != nil {
		return k
	}
	r.mu.RLock()
	stale := r.Now().Sub(r.loaded) >= reloadEvery
	r.mu.RUnlock()
	if !stale {
		return nil
	}
	if err := r.Reload(); err != nil {
		r.log.Error("reloading the signing keys failed", "err", err)
		return nil
	}
	return find()
}

// Verify checks that raw is an RS256 JWT signed by one of the keys and
// decodes its claims into out.
func (r *Ring) Verify(raw string, out any) error {
	tok, err := jwt.ParseSigned(raw)
	if err != nil || len(tok.Headers) != 1 {
		return errBadJWT
	}
	k := r.byKid(tok.Headers[0].KeyID)
	if k == nil {
		return errBadJWT
	}
	return k.verify(raw, out)
}

// HMACSecret is fosite's global secret (codes and refresh tokens are HMACs
// with it), kept in the store so that they survive a restart and pass at
// every replica; the first start creates it.
func HMACSecret(s *store.Store) ([]byte, error) {
	var secret []byte
	err := s.Update(func(tx kv.Tx) error {
		v, ok, err := tx.Get(bucketKeys, "hmac")
		if err != nil {
			return err
		}
		if ok {
			secret = v
			return nil
		}
		secret = make([]byte, 32)
		_, _ = rand.Read(secret) // never fails (crypto/rand panics rather than return an error)
		return tx.Put(bucketKeys, "hmac", secret)
	})
	if err == nil && len(secret) < 32 {
		err = errors.New("the stored HMAC secret is shorter than 32 bytes")
	}
	if err != nil {
		return nil, fmt.Errorf("authserver: the HMAC secret in %s: %w", s, err)
	}
	return secret, nil
}
