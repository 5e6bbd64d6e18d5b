package authserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// serveAt runs a server with opts on addr (host:port; the issuer is url);
// stop stops it and closes its store.
func serveAt(t *testing.T, addr, base string, db kv.Store) (ts *testServer, stop func()) {
	t.Helper()
	s, err := New(Options{URL: base, Store: db, HashCost: bcrypt.MinCost, Demo: &Demo{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s}}
	hs.Start()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			hs.Close()
			_ = db.Close()
		}
	}
	t.Cleanup(stop)
	return &testServer{Server: s, url: "http://" + addr}, stop
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// state is what one server did before a restart (or at another replica).
type state struct {
	tokens  issued // marissa's, live
	revoked issued // marissa's, revoked
	client  string // a client registered through the API
	kid     string
}

func makeState(t *testing.T, ts *testServer) state {
	t.Helper()
	st := state{tokens: userTokens(t, ts, "openid fortunes.read"), revoked: userTokens(t, ts, "openid")}
	if r := post(t, ts, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {st.revoked.AccessToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	r := api(t, ts, "POST", "/oauth/clients", adminToken(t, ts),
		`{"client_id":"late","client_secret":"late-secret","authorized_grant_types":["client_credentials"],"authorities":["fortunes.read"]}`)
	if r.status != http.StatusCreated {
		t.Fatalf("client: %d %s", r.status, r.body)
	}
	st.client = "late"
	st.kid = ts.keys.Current().Kid()
	return st
}

// checkState verifies at ts what another server (or an earlier run) did.
func checkState(t *testing.T, ts *testServer, st state) {
	t.Helper()
	if r := checkToken(t, ts, st.tokens.AccessToken); r.status != http.StatusOK {
		t.Fatalf("check_token of a token issued before: %d %s", r.status, r.body)
	}
	assertRevoked(t, ts, st.revoked.AccessToken)
	if r := post(t, ts, "/oauth/token", "late:late-secret", url.Values{"grant_type": {"client_credentials"}}); r.status != http.StatusOK {
		t.Fatalf("the client registered before: %d %s", r.status, r.body)
	}
	u, ok := ts.store.UserByName(DemoUserName)
	if !ok || !ts.store.Approved(u.ID, GreetingClientID, []string{"openid", "fortunes.read"}) {
		t.Fatal("the approval given before is forgotten")
	}
	if r := newBrowser(t, ts).get("/token_keys"); !strings.Contains(r.body, st.kid) {
		t.Fatalf("the signing key %s is not in the JWKS: %s", st.kid, r.body)
	}
	r := post(t, ts, "/oauth/token", "greeting:greeting-secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {st.tokens.RefreshToken}})
	fresh := tokensOf(t, r)
	if r := checkToken(t, ts, fresh.AccessToken); r.status != http.StatusOK {
		t.Fatalf("check_token of a refreshed token: %d %s", r.status, r.body)
	}
}

// A server stopped and started again on the same bbolt file keeps every
// token, revocation, client, approval and its signing key.
func TestRestartOnTheSameDataKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authserver.db")
	open := func() kv.Store {
		db, err := kv.OpenBolt(path)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	addr := freeAddr(t)
	ts, stop := serveAt(t, addr, "http://"+addr, open())
	st := makeState(t, ts)
	stop()

	ts, stop = serveAt(t, addr, "http://"+addr, open())
	checkState(t, ts, st)
	// checkState used the refresh token once (rotation): a second use is
	// refused as a reuse.
	r := post(t, ts, "/oauth/token", "greeting:greeting-secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {st.tokens.RefreshToken}})
	if r.status != http.StatusBadRequest {
		t.Fatalf("reused refresh token: %d %s", r.status, r.body)
	}
	stop()
}

// Two replicas on one PostgreSQL behind one URL agree: a token issued by
// one passes check_token at the other, a revocation at one holds at the
// other, a client registered at one is known to the other.
func TestReplicasOnOnePostgresAgree(t *testing.T) {
	pg := pgtest.Start(t)
	open := func() kv.Store {
		db, err := kv.OpenPostgres(context.Background(), pg.URL())
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	addrA, addrB := freeAddr(t), freeAddr(t)
	base := "http://" + addrA // the load balancer's URL, the issuer of both
	a, _ := serveAt(t, addrA, base, open())
	b, _ := serveAt(t, addrB, base, open())
	if a.keys.Current().Kid() != b.keys.Current().Kid() {
		t.Fatal("the replicas sign with different keys")
	}
	st := makeState(t, a)
	checkState(t, b, st)
	// A revocation at b holds at a.
	if r := post(t, b, "/oauth/revoke", "greeting:greeting-secret", url.Values{"token": {st.tokens.AccessToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke at b: %d %s", r.status, r.body)
	}
	assertRevoked(t, a, st.tokens.AccessToken)
}

// Rotation: a new key signs, the previous one stays in the JWKS and keeps
// verifying until the tokens it signed have expired, then it goes.
func TestSigningKeyRotationKeepsTokensInFlight(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.SigningKey = nil; o.KeyRotation = time.Hour })
	clock := time.Now()
	ts.keys.Now = func() time.Time { return clock }
	old := adminToken(t, ts)
	oldKid := ts.keys.Current().Kid()

	clock = clock.Add(2 * time.Hour)
	newKid := ts.keys.Current().Kid()
	if newKid == oldKid {
		t.Fatal("the key did not rotate")
	}
	jwks := newBrowser(t, ts).get("/token_keys").body
	if !strings.Contains(jwks, oldKid) || !strings.Contains(jwks, newKid) {
		t.Fatalf("JWKS lacks a key: %s", jwks)
	}
	if r := checkToken(t, ts, old); r.status != http.StatusOK {
		t.Fatalf("a token signed by the previous key: %d %s", r.status, r.body)
	}
	if kid := claimsHeaderKid(t, adminToken(t, ts)); kid != newKid {
		t.Fatalf("new tokens signed by %s, want %s", kid, newKid)
	}

	// Once every token of the old key has expired, it leaves the JWKS.
	clock = clock.Add(DefaultAccessTokenTTL + 2*time.Minute)
	if err := ts.keys.Reload(); err != nil {
		t.Fatal(err)
	}
	if jwks := newBrowser(t, ts).get("/token_keys").body; strings.Contains(jwks, oldKid) {
		t.Fatalf("the expired key is still in the JWKS: %s", jwks)
	}
}

func claimsHeaderKid(t *testing.T, token string) string {
	t.Helper()
	var h struct {
		Kid string `json:"kid"`
	}
	part, _, _ := strings.Cut(token, ".")
	decodeSegment(t, part, &h)
	return h.Kid
}

func decodeSegment(t *testing.T, seg string, out any) {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

// Two replicas on one PostgreSQL receive many exchanges of one code at
// once: marking the code used is a compare-and-set in the store, so exactly
// one exchange succeeds, whichever replica answers it. (The in-process lock
// of the token endpoint covers one replica only.)
func TestOneCodeExchangedAtTwoReplicasAtOnceSucceedsOnce(t *testing.T) {
	pg := pgtest.Start(t)
	open := func() kv.Store {
		db, err := kv.OpenPostgres(context.Background(), pg.URL())
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	addrA, addrB := freeAddr(t), freeAddr(t)
	base := "http://" + addrA
	a, _ := serveAt(t, addrA, base, open())
	b, _ := serveAt(t, addrB, base, open())
	for round := range 5 {
		code := codeOf(t, newBrowser(t, a).approve(authParams("openid fortunes.read"), DemoUserName, DemoUserPassword))
		const n = 16
		statuses := make(chan int, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			at := []*testServer{a, b}[i%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r := exchange(t, at, code, nil)
				if r.status != http.StatusOK && r.status != http.StatusBadRequest {
					t.Logf("%d %s", r.status, r.body)
				}
				statuses <- r.status
			}()
		}
		close(start)
		wg.Wait()
		close(statuses)
		ok, refused := 0, 0
		for s := range statuses {
			switch s {
			case http.StatusOK:
				ok++
			case http.StatusBadRequest:
				refused++
			default:
				t.Errorf("round %d: an exchange answered %d", round, s)
			}
		}
		if ok != 1 || refused != n-1 {
			t.Fatalf("round %d: %d exchanges succeeded and %d were refused, want 1 and %d", round, ok, refused, n-1)
		}
	}
}
