package greeting

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// TestFortuneFailures: whatever goes wrong behind the page, the page says
// so in words (502), never with a Go error.
func TestFortuneFailures(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", code) }
	}
	tests := []struct {
		name    string
		answer  http.HandlerFunc
		message string
		renewed bool
	}{
		{"5xx", status(http.StatusInternalServerError), "The fortune service failed (status 500)", false},
		{"403", status(http.StatusForbidden), "does not include reading fortunes (fortunes.read)", false},
		{"401 after a renewal", status(http.StatusUnauthorized), "refused the access token, even after it was renewed", true},
		{"empty", func(http.ResponseWriter, *http.Request) {}, "answered an empty fortune", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.fortune.answer(tt.answer)
			defer f.fortune.reset()
			grants := f.as.Calls("/oauth/token")
			r := b.Get(f.url + "/")
			checkFailurePage(t, r, tt.message)
			j, m := f.page(t, b)
			if j.Status != http.StatusBadGateway || !strings.Contains(m["error"].(string), tt.message) || m["user"] != "Marissa Bloggs" {
				t.Errorf("JSON: %d %s", j.Status, j.Body)
			}
			if renewed := f.as.Calls("/oauth/token") > grants; renewed != tt.renewed {
				t.Errorf("access token renewed: %v, want %v", renewed, tt.renewed)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		f.fsrv.Close()
		checkFailurePage(t, b.Get(f.url+"/"), "The fortune service cannot be reached")
	})
}

func checkFailurePage(t *testing.T, r authtest.Reply, message string) {
	t.Helper()
	if r.Status != http.StatusBadGateway || !strings.Contains(r.Body, "<h1>No fortune today</h1>") || !strings.Contains(r.Body, message) {
		t.Fatalf("want a 502 page saying %q, got %d %s", message, r.Status, r.Body)
	}
	for _, want := range []string{"Marissa Bloggs", "Sign out", `<a href="/">Try again</a>`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("failure page lacks %s", want)
		}
	}
	if strings.Contains(r.Body, "dial tcp") || strings.Contains(r.Body, "Get \"") {
		t.Errorf("failure page shows a Go error:\n%s", r.Body)
	}
}

// TestRefreshOfAnExpiredAccessToken: past the token's expiry the client
// renews it with the refresh token before it calls the fortune service.
func TestRefreshOfAnExpiredAccessToken(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)
	if r, _ := f.page(t, b); r.Status != http.StatusOK {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	first := f.fortune.lastToken()
	f.advanceToExpiry(t, b)
	r, m := f.page(t, b)
	if r.Status != http.StatusOK || m["fortune"] == "" {
		t.Fatalf("after the expiry: %d %s", r.Status, r.Body)
	}
	if got := f.as.Calls("/oauth/token"); got != 2 {
		t.Errorf("%d token requests, want the exchange and one refresh", got)
	}
	if f.fortune.lastToken() == first || f.fortune.calls.Load() != 2 {
		t.Error("the fortune service was not called once with a new token")
	}
	f.page(t, b)
	if got := f.as.Calls("/oauth/token"); got != 2 {
		t.Errorf("%d token requests: the renewed token was not kept", got)
	}
}

// TestRefreshWhenTheFortuneServiceSays401: the fortune service's 401 makes
// the client renew the token and try once more.
func TestRefreshWhenTheFortuneServiceSays401(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)
	var once sync.Once
	f.fortune.answer(func(w http.ResponseWriter, r *http.Request) {
		refused := false
		once.Do(func() { refused = true })
		if refused {
			http.Error(w, "expired", http.StatusUnauthorized)
			return
		}
		f.fortune.real.ServeHTTP(w, r)
	})
	r, m := f.page(t, b)
	if r.Status != http.StatusOK || m["fortune"] == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if f.as.Calls("/oauth/token") != 2 || f.fortune.calls.Load() != 2 {
		t.Errorf("token requests %d, fortune calls %d; want 2 and 2", f.as.Calls("/oauth/token"), f.fortune.calls.Load())
	}
}

// TestRefreshOnRealExpiry runs with a 2-second access token at the
// authorization server, and no clock moved.
func TestRefreshOnRealExpiry(t *testing.T) {
	f := start(t, func(o *authserver.Options) { o.AccessTokenTTL = 2 * time.Second })
	b := f.signedIn(t)
	time.Sleep(time.Until(authtest.Expiry(t, f.tokens(t, b).access)) + 50*time.Millisecond)
	if r, m := f.page(t, b); r.Status != http.StatusOK || m["fortune"] == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if got := f.as.Calls("/oauth/token"); got != 2 {
		t.Errorf("%d token requests, want 2", got)
	}
}

// TestRevokedGrantStartsANewSignIn: a refresh token the authorization
// server no longer accepts sends the browser to sign in again.
func TestRevokedGrantStartsANewSignIn(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)
	f.as.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, f.tokens(t, b).refresh)
	r := b.Get(f.url + "/")
	if r.Status != http.StatusFound || !strings.Contains(r.Header.Get("Location"), "/oauth/authorize?") {
		t.Fatalf("%d %v %s", r.Status, r.Header.Get("Location"), r.Body)
	}
	f.signIn(t, b)
	if r, _ := f.page(t, b); r.Status != http.StatusOK {
		t.Fatalf("signed in again: %d %s", r.Status, r.Body)
	}
}

// TestConcurrentPagesRefreshOnce: page loads of one session that all find
// the token expired spend the refresh token once.
func TestConcurrentPagesRefreshOnce(t *testing.T) {
	f := start(t)
	b := f.signedIn(t)
	f.advanceToExpiry(t, b)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if r := b.Get(f.url+"/", "application/json"); r.Status != http.StatusOK {
				t.Errorf("%d %s", r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	if got := f.as.Calls("/oauth/token"); got != 2 {
		t.Fatalf("%d token requests, want the exchange and one refresh", got)
	}
}
