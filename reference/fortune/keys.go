package fortune

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v3"
)

// retryAfterFailure is the least time between two fetches of token_keys
// after a failed one: a down authorization server is asked about once a
// second, not once per request.
const retryAfterFailure = time.Second

// keySet holds the authorization server's signing keys by kid. Lookups are
// lock-free; a fetch, prompted by a kid not in the set, is made by one
// request at a time and at most once per interval (after a success), so
// tokens with made-up kids cannot make the service hammer the server.
type keySet struct {
	url      endpoint
	client   *http.Client
	timeout  time.Duration
	interval time.Duration
	now      func() time.Time

	keys atomic.Pointer[map[string]*rsa.PublicKey] // nil until the first successful fetch

	mu        sync.Mutex // serializes fetches; guards the fields below
	lastFetch time.Time
	lastOK    bool
}

// key returns the public key named kid. An unknown kid is a refused token,
// once the set is fresh enough; no keys at all is an unavailableError.
func (k *keySet) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	if key, ok := k.lookup(kid); ok {
		return key, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.lookup(kid); ok { // fetched by another request meanwhile
		return key, nil
	}
	if k.mayFetch() {
		if err := k.fetch(ctx); err != nil {
			return nil, &unavailableError{err}
		}
		if key, ok := k.lookup(kid); ok {
			return key, nil
		}
	}
	if k.keys.Load() == nil {
		return nil, &unavailableError{errors.New("no signing keys: the last fetch of token_keys failed")}
	}
	return nil, invalidToken("Token was not recognised: its signing key is unknown")
}

func (k *keySet) lookup(kid string) (*rsa.PublicKey, bool) {
	keys := k.keys.Load()
	if keys == nil {
		return nil, false
	}
	key, ok := (*keys)[kid]
	return key, ok
}

// mayFetch reports whether enough time passed since the last fetch; k.mu
// is held.
func (k *keySet) mayFetch() bool {
	if k.lastFetch.IsZero() {
		return true
	}
	wait := k.interval
	if !k.lastOK {
		wait = min(wait, retryAfterFailure)
	}
	return !k.now().Before(k.lastFetch.Add(wait))
}

// fetch replaces the set with the keys of the JWKS (UAA: token_keys),
// whose URL may need the discovery document first; k.mu is held. A key
// the server no longer lists is dropped: rotation retires it. The fetch
// serves every waiting request, so the caller going away does not cancel
// it; the timeout bounds it.
func (k *keySet) fetch(ctx context.Context) error {
	k.lastFetch, k.lastOK = k.now(), false
	ctx = context.WithoutCancel(ctx)
	target, err := k.url(ctx)
	if err != nil {
		return err
	}
	keys, err := k.get(ctx, target)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", target, err)
	}
	k.keys.Store(&keys)
	k.lastOK = true
	return nil
}

func (k *keySet) get(ctx context.Context, target string) (map[string]*rsa.PublicKey, error) {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("not a JWKS: %w", err)
	}
	return signingKeys(set)
}

// signingKeys keeps the RSA keys with a kid that may verify RS256
// signatures.
func signingKeys(set jose.JSONWebKeySet) (map[string]*rsa.PublicKey, error) {
	keys := make(map[string]*rsa.PublicKey)
	for _, k := range set.Keys {
		pub, ok := k.Key.(*rsa.PublicKey)
		if ok && k.KeyID != "" && (k.Use == "" || k.Use == "sig") && (k.Algorithm == "" || k.Algorithm == string(jose.RS256)) {
			keys[k.KeyID] = pub
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no RSA signing key with a kid")
	}
	return keys, nil
}
