package authserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
	"github.com/fortune-tck/fortune-tck/reference/authserver/accounts"
	"github.com/fortune-tck/fortune-tck/reference/authserver/kv"
)

// The sign-in page's messages (package accounts).
const (
	badCredentials = "Unable to verify username or password. Please try again."
	lockedOut      = "Your account has been locked because of too many failed attempts to login."
)

// clock is a settable time for the lockout, safe to set between requests
// (the server reads it on its own goroutines).
type clock struct{ ms atomic.Int64 }

func startClock(ts *testServer) *clock {
	c := new(clock)
	c.ms.Store(time.Now().UnixMilli())
	ts.accounts.Lockout.Now = func() time.Time { return time.UnixMilli(c.ms.Load()) }
	return c
}

func (c *clock) advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// attempt is one sign-in through the form: its status and the message the
// page shows ("" when it redirected).
func attempt(t testing.TB, ts *testServer, user, password string) (int, string) {
	t.Helper()
	r := newBrowser(t, ts).signIn(user, password)
	return r.status, pageError(r.body)
}

var pageErrorPattern = regexp.MustCompile(`<p class="error" role="alert">([^<]*)</p>`)

func pageError(body string) string {
	if m := pageErrorPattern.FindStringSubmatch(body); m != nil {
		return strings.ReplaceAll(m[1], "&#39;", "'")
	}
	return ""
}

func wantRefused(t testing.TB, what string, status int, msg, want string) {
	t.Helper()
	if status != http.StatusUnauthorized || msg != want {
		t.Fatalf("%s: %d %q, want 401 %q", what, status, msg, want)
	}
}

// UAA's defaults: five failures lock the user out for five minutes, the
// right password included; a wrong one during the lockout does not extend
// it; after it, the right password signs in and the count starts again.
func TestLockoutAfterFiveFailuresRefusesTheRightPassword(t *testing.T) {
	ts := newTestServer(t)
	c := startClock(ts)
	for i := 1; i <= accounts.DefaultLockoutAfterFailures; i++ {
		status, msg := attempt(t, ts, DemoUserName, "wrong")
		wantRefused(t, fmt.Sprintf("failure %d", i), status, msg, badCredentials)
	}
	for i := range 45 {
		status, msg := attempt(t, ts, DemoUserName, []string{"wrong", DemoUserPassword}[i%2])
		wantRefused(t, fmt.Sprintf("attempt %d during the lockout", 6+i), status, msg, lockedOut)
	}
	c.advance(accounts.DefaultLockoutPeriod - time.Second)
	status, msg := attempt(t, ts, DemoUserName, DemoUserPassword)
	wantRefused(t, "the right password a second before the period ends", status, msg, lockedOut)
	c.advance(time.Second)
	if status, msg := attempt(t, ts, DemoUserName, DemoUserPassword); status != http.StatusFound {
		t.Fatalf("the right password after the period: %d %q", status, msg)
	}
	// The success reset the count: four failures do not lock.
	for range accounts.DefaultLockoutAfterFailures - 1 {
		attempt(t, ts, DemoUserName, "wrong")
	}
	if status, msg := attempt(t, ts, DemoUserName, DemoUserPassword); status != http.StatusFound {
		t.Fatalf("the count was not reset by a success: %d %q", status, msg)
	}
}

// As in UAA, once the period ends a locked user has one attempt; a failure
// locks again at once, while the earlier failures are within the window.
// Failures older than the window no longer count.
func TestLockoutCountsFailuresWithinTheWindow(t *testing.T) {
	ts := newTestServer(t)
	c := startClock(ts)
	for range 5 {
		attempt(t, ts, DemoUserName, "wrong")
	}
	c.advance(accounts.DefaultLockoutPeriod)
	status, msg := attempt(t, ts, DemoUserName, "wrong")
	wantRefused(t, "the first attempt after the period", status, msg, badCredentials)
	status, msg = attempt(t, ts, DemoUserName, DemoUserPassword)
	wantRefused(t, "the right password after a failure past the period", status, msg, lockedOut)

	c.advance(accounts.DefaultLockoutCountWithin + time.Second)
	for i := range 4 {
		status, msg := attempt(t, ts, DemoUserName, "wrong")
		wantRefused(t, fmt.Sprintf("failure %d in a new window", i+1), status, msg, badCredentials)
	}
	if status, msg := attempt(t, ts, DemoUserName, DemoUserPassword); status != http.StatusFound {
		t.Fatalf("failures older than the window still count: %d %q", status, msg)
	}
}

// A name that is no user is counted and answered exactly as a user with a
// wrong password: the same status and page, attempt after attempt, the
// lockout included.
func TestLockoutAnswersAnUnknownNameAsAUser(t *testing.T) {
	ts := newTestServer(t)
	csrf := regexp.MustCompile(`name="X-Uaa-Csrf" value="[^"]+"`)
	page := func(user, password string) string {
		r := newBrowser(t, ts).signIn(user, password)
		body := csrf.ReplaceAllString(r.body, "CSRF")
		return fmt.Sprintf("%d %v\n%s", r.status, r.header["Content-Type"], strings.ReplaceAll(body, `value="`+user+`"`, `value="NAME"`))
	}
	for i := range 8 {
		password := "wrong"
		if i >= 6 {
			password = DemoUserPassword
		}
		user, nobody := page(DemoUserName, password), page("nobody", password)
		if user != nobody {
			t.Fatalf("attempt %d: a user and an unknown name are answered differently:\n%s\n---\n%s", i+1, user, nobody)
		}
		want := badCredentials
		if i >= accounts.DefaultLockoutAfterFailures {
			want = lockedOut
		}
		if !strings.Contains(user, strings.ReplaceAll(want, "'", "&#39;")) {
			t.Fatalf("attempt %d: not %q:\n%s", i+1, want, user)
		}
	}
}

// Many attempts at once are counted one by one: of 30 wrong passwords sent
// together, exactly five are checked and refused as wrong; the others meet
// the lockout.
func TestLockoutCountsConcurrentAttempts(t *testing.T) {
	ts := newTestServer(t)
	msgs := make(chan string, 30)
	var wg sync.WaitGroup
	for range cap(msgs) {
		wg.Go(func() {
			_, msg := attempt(t, ts, DemoUserName, "wrong")
			msgs <- msg
		})
	}
	wg.Wait()
	close(msgs)
	count := map[string]int{}
	for m := range msgs {
		count[m]++
	}
	if count[badCredentials] != accounts.DefaultLockoutAfterFailures || count[lockedOut] != cap(msgs)-accounts.DefaultLockoutAfterFailures {
		t.Fatalf("answers %v, want %d %q and the rest %q", count, accounts.DefaultLockoutAfterFailures, badCredentials, lockedOut)
	}
}

// The policy's options: fewer failures, a shorter period, or no lockout.
func TestLockoutPolicyOptions(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.Lockout = accounts.LockoutPolicy{AfterFailures: 2, Period: time.Minute} })
	c := startClock(ts)
	attempt(t, ts, DemoUserName, "wrong")
	attempt(t, ts, DemoUserName, "wrong")
	status, msg := attempt(t, ts, DemoUserName, DemoUserPassword)
	wantRefused(t, "after 2 failures", status, msg, lockedOut)
	c.advance(time.Minute)
	if status, msg := attempt(t, ts, DemoUserName, DemoUserPassword); status != http.StatusFound {
		t.Fatalf("after a period of a minute: %d %q", status, msg)
	}

	off := newTestServer(t, func(o *Options) { o.Lockout.AfterFailures = -1 })
	for range 10 {
		attempt(t, off, DemoUserName, "wrong")
	}
	if status, msg := attempt(t, off, DemoUserName, DemoUserPassword); status != http.StatusFound {
		t.Fatalf("lockout turned off: %d %q", status, msg)
	}
	for _, bad := range []accounts.LockoutPolicy{{CountWithin: -time.Second}, {Period: -time.Second}, {AfterFailures: 1001}} {
		if _, err := New(Options{URL: "http://localhost:9000", Lockout: bad}); err == nil {
			t.Errorf("New accepted the lockout policy %+v", bad)
		}
	}
}

// The counts live in the store: a server started again on the same bbolt
// file still refuses the locked user, and a replica on the same PostgreSQL
// refuses the user another replica locked.
func TestLockoutIsKeptInTheStore(t *testing.T) {
	t.Run("restart", func(t *testing.T) {
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
		for range 50 {
			attempt(t, ts, DemoUserName, "wrong")
		}
		stop()
		ts, _ = serveAt(t, addr, "http://"+addr, open())
		status, msg := attempt(t, ts, DemoUserName, DemoUserPassword)
		wantRefused(t, "the right password after a restart", status, msg, lockedOut)
	})
	t.Run("replicas", func(t *testing.T) {
		pg := pgtest.Start(t)
		open := func() kv.Store {
			db, err := kv.OpenPostgres(context.Background(), pg.URL())
			if err != nil {
				t.Fatal(err)
			}
			return db
		}
		addrA, addrB := freeAddr(t), freeAddr(t)
		a, _ := serveAt(t, addrA, "http://"+addrA, open())
		b, _ := serveAt(t, addrB, "http://"+addrA, open())
		for i := range 50 {
			attempt(t, []*testServer{a, b}[i%2], "nobody", "wrong")
			attempt(t, a, DemoUserName, "wrong")
		}
		// Attempts at both replicas at once are counted in one serializable
		// transaction each: exactly five passwords are checked.
		msgs := make(chan string, 30)
		var wg sync.WaitGroup
		for i := range cap(msgs) {
			wg.Go(func() {
				_, msg := attempt(t, []*testServer{a, b}[i%2], "carol", "wrong")
				msgs <- msg
			})
		}
		wg.Wait()
		close(msgs)
		count := map[string]int{}
		for m := range msgs {
			count[m]++
		}
		if count[badCredentials] != accounts.DefaultLockoutAfterFailures || count[lockedOut] != cap(msgs)-accounts.DefaultLockoutAfterFailures {
			t.Fatalf("answers at two replicas at once %v, want %d %q and the rest %q", count, accounts.DefaultLockoutAfterFailures, badCredentials, lockedOut)
		}
		for _, ts := range []*testServer{a, b} {
			status, msg := attempt(t, ts, DemoUserName, DemoUserPassword)
			wantRefused(t, "the right password at "+ts.url, status, msg, lockedOut)
			status, msg = attempt(t, ts, "nobody", "wrong")
			wantRefused(t, "the unknown name at "+ts.url, status, msg, lockedOut)
		}
	})
}

// Failures and lockouts are audit events with UAA's names: the user's
// failures as UserAuthenticationFailure, an unknown name's as UserNotFound,
// and the failure that locks as UserAccountLocked as well.
func TestLockoutAuditEvents(t *testing.T) {
	var logs syncbuf.Buffer
	ts := newTestServer(t, func(o *Options) { o.Logger = logs.Logger() })
	for range 6 {
		attempt(t, ts, DemoUserName, "wrong")
		attempt(t, ts, "nobody", "wrong")
	}
	u, _ := ts.store.UserByName(DemoUserName)
	for _, tt := range []struct {
		event, with string
		want        int
	}{
		{"msg=UserAuthenticationFailure", "user_id=" + u.ID, 5},
		{"msg=UserNotFound", "username=nobody", 5},
		{"msg=UserAccountLocked", "user_id=" + u.ID, 1},
		{"msg=UserAccountLocked", "username=nobody", 1},
		{"msg=\"sign-in refused: locked\"", "username=", 2},
	} {
		n := 0
		for _, line := range logs.Lines(tt.event + " ") {
			if strings.Contains(line, tt.with) && strings.Contains(line, "remote_addr=127.0.0.1:") {
				n++
			}
		}
		if n != tt.want {
			t.Errorf("%d %s events with %s, want %d; log:\n%s", n, tt.event, tt.with, tt.want, logs.String())
		}
	}
	if lines := logs.Lines("msg=UserAccountLocked"); len(lines) == 0 || !strings.Contains(lines[0], "locked_until=") || !strings.Contains(lines[0], "level=WARN") {
		t.Errorf("UserAccountLocked without locked_until or not a warning: %q", lines)
	}
}

// The token endpoint offers no password grant, so it cannot be a way round
// the lockout.
func TestLockoutHasNoPasswordGrantBypass(t *testing.T) {
	ts := newTestServer(t)
	for range 5 {
		attempt(t, ts, DemoUserName, "wrong")
	}
	r := post(t, ts, "/oauth/token", "greeting:greeting-secret", url.Values{
		"grant_type": {"password"}, "username": {DemoUserName}, "password": {DemoUserPassword}})
	if r.status != http.StatusBadRequest || r.json(t)["error"] != "unsupported_grant_type" {
		t.Fatalf("password grant: %d %s", r.status, r.body)
	}
}

// A deleted user's count goes with it.
func TestLockoutForgetsADeletedUser(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	r := api(t, ts, "POST", "/Users", admin, `{"userName":"carol","password":"pw","emails":[{"value":"carol@test.org"}]}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	id := r.json(t)["id"].(string)
	attempt(t, ts, "carol", "wrong")
	if r := api(t, ts, "DELETE", "/Users/"+id, admin, ""); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	err := ts.store.View(func(tx kv.Tx) error {
		if _, ok, err := tx.Get("lockout", "user:"+id); err != nil || ok { // the bucket of the counts
			return fmt.Errorf("the count of the deleted user is still stored (err %v)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkSignInRefused compares a wrong password for a user with an
// unknown name: both cost one bcrypt comparison at the server's cost (10
// here, as served), so their times match; the lockout is off so that every
// attempt is checked.
func BenchmarkSignInRefused(b *testing.B) {
	ts := newTestServer(b, func(o *Options) { o.HashCost = 10; o.Lockout.AfterFailures = -1 })
	for _, name := range []string{DemoUserName, "nobody"} {
		b.Run(name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodPost, "/login.do", nil)
			for b.Loop() {
				if u, _ := ts.accounts.Authenticate(req, name, "wrong"); u != nil {
					b.Fatal("signed in")
				}
			}
		})
	}
}
