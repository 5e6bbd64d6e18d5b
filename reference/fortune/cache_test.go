package fortune

import (
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

func TestCacheHitAvoidsACall(t *testing.T) {
	f := start(t, nil, Options{CacheSize: 10})
	token := f.as.ResourceClient(t, "reader", 0, RequiredScope)
	for range 5 {
		wantFortune(t, f.get(t, "/", token))
	}
	if c := f.as.Calls("/check_token"); c != 1 {
		t.Fatalf("%d calls to check_token for 5 requests with one token, want 1", c)
	}
}

func TestCacheIsBounded(t *testing.T) {
	f := start(t, nil, Options{CacheSize: 2})
	a := f.as.ResourceClient(t, "a", 0, RequiredScope)
	b := f.as.ResourceClient(t, "b", 0, RequiredScope)
	c := f.as.ResourceClient(t, "c", 0, RequiredScope)
	for _, step := range []struct {
		token string
		calls int
	}{{a, 1}, {b, 2}, {c, 3}, {c, 3}, {b, 3}, {a, 4} /* a was evicted */, {b, 4}, {c, 5}} {
		wantFortune(t, f.get(t, "/", step.token))
		if got := f.as.Calls("/check_token"); got != step.calls {
			t.Fatalf("%d calls, want %d", got, step.calls)
		}
	}
}

func TestCacheEntriesExpire(t *testing.T) {
	t.Run("after the TTL", func(t *testing.T) {
		f := start(t, nil, Options{CacheSize: 10, CacheTTL: time.Minute})
		token := f.as.ResourceClient(t, "reader", 0, RequiredScope)
		wantFortune(t, f.get(t, "/", token))
		f.clock.advance(59 * time.Second)
		wantFortune(t, f.get(t, "/", token))
		f.clock.advance(time.Second)
		wantFortune(t, f.get(t, "/", token))
		if c := f.as.Calls("/check_token"); c != 2 {
			t.Fatalf("%d calls, want 2", c)
		}
	})
	t.Run("at the token's expiry", func(t *testing.T) {
		f := start(t, nil, Options{CacheSize: 10, CacheTTL: 48 * time.Hour})
		token := f.as.ResourceClient(t, "reader", 0, RequiredScope)
		wantFortune(t, f.get(t, "/", token))
		f.clock.advance(time.Until(authtest.Expiry(t, token)))
		wantFortune(t, f.get(t, "/", token)) // the server's clock did not move: still valid there
		if c := f.as.Calls("/check_token"); c != 2 {
			t.Fatalf("%d calls, want 2: an entry is not kept past the token's exp", c)
		}
	})
}

func TestCacheKeepsNoRefusal(t *testing.T) {
	f := start(t, nil, Options{CacheSize: 10})
	for range 3 {
		wantRefusal(t, f.get(t, "/", "not.a-token"), 401, "invalid_token", "Token was not recognised")
	}
	if c := f.as.Calls("/check_token"); c != 3 {
		t.Fatalf("%d calls, want 3", c)
	}
}

// TestCacheRevocationTradeOff pins the documented trade-off: a revoked
// token is accepted while its answer is cached, and refused after.
func TestCacheRevocationTradeOff(t *testing.T) {
	f := start(t, nil, Options{CacheSize: 10})
	tk := f.as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
	wantFortune(t, f.get(t, "/", tk.AccessToken))
	f.as.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, tk.AccessToken)
	wantFortune(t, f.get(t, "/", tk.AccessToken))
	f.clock.advance(DefaultCacheTTL)
	wantRefusal(t, f.get(t, "/", tk.AccessToken), 401, "invalid_token", "The token has been revoked")
}
