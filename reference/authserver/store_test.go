package authserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"

	"github.com/ory/fosite"
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
	var won []tokens
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
	fortunes, _ := ts.store.groupByName("fortunes.read")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			u, err := ts.addUser(context.Background(), userSpec{UserName: fmt.Sprintf("c%d", i), Email: "c@test.org", Password: "pw", Active: true})
			if err != nil {
				t.Error(err)
				return
			}
			if err := ts.store.addMember(fortunes.ID, u.ID); err != nil {
				t.Error(err)
			}
			if err := ts.store.approve(u.ID, "greeting", []string{"openid"}); err != nil {
				t.Error(err)
			}
			if !ts.store.approved(u.ID, "greeting", []string{"openid"}) || !ts.store.isMember(u.ID, "fortunes.read") {
				t.Error("lost a write")
			}
			_ = ts.scopesSupported()
			_ = ts.store.listUsers()
		})
	}
	wg.Wait()
	if g, _ := ts.store.groupByName("fortunes.read"); len(g.Members) != 17 {
		t.Fatalf("%d members, want 17", len(g.Members))
	}
}

func TestTokenTableSweepsExpired(t *testing.T) {
	s := newStore(kv.NewMemory(), nil)
	if err := s.createClient(&clientRecord{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	client, _ := s.GetClient(context.Background(), "c")
	table := s.access
	expired := newClientSession()
	expired.SetExpiresAt(fosite.AccessToken, time.Now().Add(-time.Minute))
	for i := range minSweepWrites - 1 {
		if err := table.put(fmt.Sprintf("old%d", i), &fosite.Request{ID: fmt.Sprintf("r%d", i), Client: client, Session: expired}); err != nil {
			t.Fatal(err)
		}
	}
	live := newClientSession()
	live.SetExpiresAt(fosite.AccessToken, time.Now().Add(time.Hour))
	if err := table.put("live", &fosite.Request{ID: "live", Client: client, Session: live}); err != nil {
		t.Fatal(err)
	}
	if n := table.size(); n != 1 {
		t.Fatalf("%d entries after the sweep, want 1", n)
	}
	n := 0
	_ = s.view(func(tx kv.Tx) error {
		return tx.Scan(table.index, "", func(string, []byte) error { n++; return nil })
	})
	if n != 1 {
		t.Fatalf("request index not swept: %d", n)
	}
}

// TestStoreReturnsCopies: fosite changes the requests it gets; the stored
// ones must not change with them.
func TestStoreReturnsCopies(t *testing.T) {
	s := newStore(kv.NewMemory(), nil)
	sess := newClientSession()
	sess.SetExpiresAt(fosite.AccessToken, time.Now().Add(time.Hour))
	req := &fosite.Request{ID: "r1", Session: sess, GrantedScope: fosite.Arguments{"a"}, Form: url.Values{"k": {"v"}}}
	ctx := context.Background()
	_ = s.CreateAccessTokenSession(ctx, "sig", req)
	req.GrantScope("b") // the caller's copy changes after the write
	got, err := s.GetAccessTokenSession(ctx, "sig", nil)
	if err != nil {
		t.Fatal(err)
	}
	got.GrantScope("c")
	got.GetRequestForm().Set("k", "changed")
	got.GetSession().SetExpiresAt(fosite.AccessToken, time.Time{})
	again, _ := s.GetAccessTokenSession(ctx, "sig", nil)
	if len(again.GetGrantedScopes()) != 1 || again.GetRequestForm().Get("k") != "v" || again.GetSession().GetExpiresAt(fosite.AccessToken).IsZero() {
		t.Fatalf("stored request changed: %+v", again)
	}
	_ = s.RevokeAccessToken(ctx, "r1")
	if _, err := s.GetAccessTokenSession(ctx, "sig", nil); err != fosite.ErrInactiveToken {
		t.Fatalf("revoked: %v", err)
	}
}
