package authserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
)

// TestConcurrentFlows runs whole flows, checks, refreshes and provisioning
// at once; with -race it proves the store and the sessions safe.
func TestConcurrentFlows(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			tk := userTokens(t, ts, "openid fortunes.read")
			for range 5 {
				if r := checkToken(t, ts, tk.AccessToken); r.status != http.StatusOK {
					t.Errorf("check_token: %d %s", r.status, r.body)
				}
			}
			r := post(t, ts, "/oauth/token", "greeting:greeting-secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}})
			if r.status != http.StatusOK {
				t.Errorf("refresh: %d %s", r.status, r.body)
			}
			body := fmt.Sprintf(`{"userName":"u%d","password":"pw","emails":[{"value":"u%d@test.org"}]}`, i, i)
			if r := api(t, ts, "POST", "/Users", admin, body); r.status != http.StatusCreated {
				t.Errorf("create user: %d %s", r.status, r.body)
			}
			api(t, ts, "GET", "/Groups", admin, "")
		})
	}
	wg.Wait()
}

// TestConcurrentCodeExchange: of racing exchanges of one code exactly one
// wins, the others are replays, and the winner's tokens end revoked.
func TestConcurrentCodeExchange(t *testing.T) {
	ts := newTestServer(t)
	b := newBrowser(t, ts)
	code := codeOf(t, b.approve(authParams("openid"), "marissa", "koala"))
	var mu sync.Mutex
	var won []issued
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			r := exchange(t, ts, code, nil)
			switch {
			case r.status == http.StatusOK:
				mu.Lock()
				won = append(won, tokensOf(t, r))
				mu.Unlock()
			case r.status != http.StatusBadRequest || r.json(t)["error"] != "invalid_grant":
				t.Errorf("replay: %d %s", r.status, r.body)
			}
		})
	}
	wg.Wait()
	if len(won) != 1 {
		t.Fatalf("%d exchanges succeeded, want 1", len(won))
	}
	assertRevoked(t, ts, won[0].AccessToken)
}

func TestStoreConcurrentRecords(t *testing.T) {
	ts := newTestServer(t)
	fortunes, _ := ts.store.GroupByName("fortunes.read")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			u, err := ts.accounts.AddUser(context.Background(), accounts.UserSpec{UserName: fmt.Sprintf("c%d", i), Email: "c@test.org", Password: "pw", Active: true})
			if err != nil {
				t.Error(err)
				return
			}
			if err := ts.store.AddMember(fortunes.ID, u.ID); err != nil {
				t.Error(err)
			}
			if err := ts.store.Approve(u.ID, "greeting", []string{"openid"}); err != nil {
				t.Error(err)
			}
			if !ts.store.Approved(u.ID, "greeting", []string{"openid"}) || !ts.store.IsMember(u.ID, "fortunes.read") {
				t.Error("lost a write")
			}
			_ = ts.scopesSupported()
			_ = ts.store.ListUsers()
		})
	}
	wg.Wait()
	if g, _ := ts.store.GroupByName("fortunes.read"); len(g.Members) != 17 {
		t.Fatalf("%d members, want 17", len(g.Members))
	}
}
