package store

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// TestStoreReturnsCopies: fosite changes the requests it gets; the stored
// ones must not change with them.
func TestStoreReturnsCopies(t *testing.T) {
	s := New(kv.NewMemory(), nil)
	sess := NewClientSession()
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
