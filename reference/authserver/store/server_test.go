package store_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ory/fosite"

	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv/kvtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"
	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// These tests run the whole server (reference/internal/authtest) on a
// kv.Store and read what it wrote through a Store of their own on the same
// kv.Store, as a replica would.

// serve starts a server on db.
func serve(t *testing.T, db kv.Store) *authtest.Server {
	t.Helper()
	return authtest.Start(t, func(o *authserver.Options) { o.Store = db })
}

func checkToken(t *testing.T, srv *authtest.Server, token string) authtest.Reply {
	t.Helper()
	return srv.PostForm(t, "/check_token", authtest.FortuneID+":"+authtest.FortuneSecret, url.Values{"token": {token}})
}

func assertRevoked(t *testing.T, srv *authtest.Server, token string) {
	t.Helper()
	r := checkToken(t, srv, token)
	if r.Status != http.StatusBadRequest || r.JSON(t)["error_description"] != "The token has been revoked" {
		t.Fatalf("token should be revoked: %d %s", r.Status, r.Body)
	}
}

// accessToken is the access token of a token response.
func accessToken(t *testing.T, r authtest.Reply) string {
	t.Helper()
	token, _ := r.JSON(t)["access_token"].(string)
	if r.Status != http.StatusOK || token == "" {
		t.Fatalf("token endpoint: %d %s", r.Status, r.Body)
	}
	return token
}

// Whole flows leave every table consistent: a refresh rotates the refresh
// token and retires the access token; a revocation retires the grant; a
// replayed code revokes what it issued.
func TestFlowsKeepTheIndexes(t *testing.T) {
	kvtest.EachStore(t, func(t *testing.T, db kv.Store) {
		srv := serve(t, db)
		greeting := authtest.GreetingID + ":" + authtest.GreetingSecret
		tk := srv.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
		refreshed := accessToken(t, srv.PostForm(t, "/oauth/token", greeting,
			url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}}))
		assertRevoked(t, srv, tk.AccessToken)
		if r := checkToken(t, srv, refreshed); r.Status != http.StatusOK {
			t.Fatalf("the refreshed token: %d %s", r.Status, r.Body)
		}
		srv.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, refreshed)
		assertRevoked(t, srv, refreshed)
		q := url.Values{
			"response_type": {"code"}, "client_id": {authtest.GreetingID}, "redirect_uri": {authtest.GreetingRedirect},
			"scope": {"openid"}, "state": {"state-0123456789"}, "nonce": {"nonce-0123456789"},
		}
		code := authtest.NewBrowser(t).Authorize(srv.URL+"/oauth/authorize?"+q.Encode(), authtest.User, authtest.Password, true).Query().Get("code")
		exchange := func() authtest.Reply {
			return srv.PostForm(t, "/oauth/token", "", url.Values{
				"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {authtest.GreetingRedirect},
				"client_id": {authtest.GreetingID}, "client_secret": {authtest.GreetingSecret},
			})
		}
		first := accessToken(t, exchange())
		if r := exchange(); r.Status != http.StatusBadRequest {
			t.Fatalf("a replayed code: %d %s", r.Status, r.Body)
		}
		assertRevoked(t, srv, first)
		if n := store.CheckTables(t, store.New(db, nil))["access-tokens"]; n != 3 {
			t.Errorf("%d access tokens stored, want the 3 issued (revoked ones stay until they expire)", n)
		}
	})
}

// A store written before the expiry index and the lean access tokens is
// migrated at start: its access tokens (whole requests, by signature) move
// to their digest and stay valid, expired ones go, the other tables and the
// users get their indexes; a second start changes nothing.
func TestMigrationOfAnEarlierStore(t *testing.T) {
	kvtest.EachStore(t, func(t *testing.T, db kv.Store) {
		srv := serve(t, db)
		s := store.New(db, nil)
		ctx := context.Background()
		client, _ := s.GetClient(ctx, authtest.GreetingID)
		marissa, _ := s.UserByName(authtest.User)
		keyReq, _ := http.NewRequest(http.MethodGet, srv.URL+"/token_key", nil)
		kid, _ := authtest.Send(t, keyReq).JSON(t)["kid"].(string)

		// The earlier layout: access tokens whole, by signature, in "access"
		// and "access-req"; no expiry index; no index by e-mail; no marks.
		// The token is signed with the server's key, as the earlier version
		// signed it.
		legacy := func(exp time.Time) string {
			req := store.TokenRequest(client, store.NewID(), exp)
			sess := store.NewUserSession(marissa, time.Now().UTC(), "")
			sess.SetExpiresAt(fosite.AccessToken, exp)
			req.Session = sess
			c, _ := s.Client(authtest.GreetingID)
			token := authtest.Forge(t, authtest.Key(), kid, map[string]any{
				"jti": rand.Text(), "sub": marissa.ID, "scope": []string{"s"}, "client_id": client.GetID(),
				"cid": client.GetID(), "azp": client.GetID(), "grant_type": "authorization_code",
				"user_id": marissa.ID, "origin": store.OriginUAA, "user_name": marissa.UserName,
				"rev_sig": store.RevSig(c, marissa), "iat": time.Now().Unix(), "exp": exp.Unix(),
				"iss": srv.Issuer(), "zid": store.ZoneID, "aud": []string{client.GetID()},
			})
			sig := token[strings.LastIndexByte(token, '.')+1:]
			if err := store.WriteLegacyAccessToken(s, sig, req, exp); err != nil {
				t.Fatal(err)
			}
			return token
		}
		live, expired := legacy(time.Now().Add(time.Hour)), legacy(time.Now().Add(-time.Hour))
		if err := s.CreateRefreshTokenSession(ctx, "refresh-sig", "", store.TokenRequest(client, "r9", time.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		if err := store.Unmigrate(s); err != nil {
			t.Fatal(err)
		}

		for start := range 2 {
			srv := serve(t, db)
			if r := checkToken(t, srv, live); r.Status != http.StatusOK {
				t.Fatalf("start %d: an earlier live token: %d %s", start, r.Status, r.Body)
			}
			m := srv.PostForm(t, "/introspect", authtest.FortuneID+":"+authtest.FortuneSecret, url.Values{"token": {live}}).JSON(t)
			if m["active"] != true || m["client_id"] != authtest.GreetingID || m["username"] != authtest.User || m["sub"] != marissa.ID {
				t.Fatalf("start %d: introspection of an earlier token: %v", start, m)
			}
			if r := checkToken(t, srv, expired); r.Status == http.StatusOK {
				t.Fatalf("start %d: an earlier expired token passes", start)
			}
			tables := store.CheckTables(t, s)
			if n := tables["access-tokens"]; n != 1+start { // and the admin token of the start before
				t.Fatalf("start %d: %d access tokens, want the live one", start, n)
			}
			if n := tables["refresh"]; n != 1 {
				t.Fatalf("start %d: %d refresh tokens", start, n)
			}
			if left, err := store.LegacyLeft(s); err != nil || len(left) > 0 {
				t.Errorf("start %d: the earlier buckets still hold %q (%v)", start, left, err)
			}
			r := srv.API(t, http.MethodGet, "/Users?filter="+url.QueryEscape(`email eq "`+marissa.Email+`"`), nil)
			if r.Status != http.StatusOK || !strings.Contains(r.Body, `"id":"`+marissa.ID+`"`) {
				t.Fatalf("start %d: email eq after the migration: %d %s", start, r.Status, r.Body)
			}
		}
		// Revoked through the request index the migration rewrote.
		srv.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, live)
		assertRevoked(t, srv, live)
	})
}
