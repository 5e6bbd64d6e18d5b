package fortune

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// countingValidator accepts tokens "ok..." until exp, refuses others, and
// counts the calls.
type countingValidator struct {
	calls int
	exp   int64
}

func (v *countingValidator) validate(_ context.Context, token string) (*tokenInfo, error) {
	v.calls++
	if token[:2] != "ok" {
		return nil, invalidToken("Token was not recognised")
	}
	return &tokenInfo{Scope: stringList{RequiredScope}, Exp: v.exp}, nil
}

func TestVerifiedCacheVerifiesATokenOnceAndNeverPastItsExpiry(t *testing.T) {
	var c clock
	base := time.Now()
	next := &countingValidator{exp: base.Add(time.Minute).Unix()}
	v := newVerifiedCache(next, 2, c.now)
	for range 3 {
		if _, err := v.validate(t.Context(), "ok-a"); err != nil {
			t.Fatal(err)
		}
	}
	if next.calls != 1 {
		t.Fatalf("%d verifications of one token, want 1", next.calls)
	}
	c.advance(time.Until(time.Unix(next.exp, 0)))
	if _, err := v.validate(t.Context(), "ok-a"); err != nil || next.calls != 2 {
		t.Fatalf("at exp the token must be verified again (calls %d, err %v)", next.calls, err)
	}
}

func TestVerifiedCacheIsBoundedAndKeepsNoRefusal(t *testing.T) {
	next := &countingValidator{exp: time.Now().Add(time.Hour).Unix()}
	v := newVerifiedCache(next, 2, time.Now)
	for i := range 5 {
		_, _ = v.validate(t.Context(), "ok-"+strconv.Itoa(i))
	}
	if n := v.cache.Len(); n != 2 {
		t.Fatalf("%d entries, want at most 2", n)
	}
	for range 2 {
		if _, err := v.validate(t.Context(), "bad"); err == nil {
			t.Fatal("a refused token passed")
		}
	}
	if next.calls != 7 {
		t.Fatalf("%d calls; a refusal must be checked again each time", next.calls)
	}
}
