package main

import (
	"flag"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
)

// The messages of the sign-in page (reference/authserver).
const (
	wrongPasswordText = "Unable to verify username or password. Please try again."
	lockedOutText     = "Your account has been locked because of too many failed attempts to login."
)

var (
	csrfFieldPattern = regexp.MustCompile(`name="X-Uaa-Csrf" value="([^"]+)"`)
	pageAlertPattern = regexp.MustCompile(`role="alert">([^<]*)<`)
)

// formSignIn signs in at base through the sign-in form, as a browser does,
// and returns the status and the page's message ("" on a redirect).
func formSignIn(t *testing.T, base, user, password string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfFieldPattern.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on the sign-in page: %d %s", resp.StatusCode, page)
	}
	resp, err = c.PostForm(base+"/login.do", url.Values{"username": {user}, "password": {password}, "X-Uaa-Csrf": {string(m[1])}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	msg := ""
	if m := pageAlertPattern.FindSubmatch(body); m != nil {
		msg = string(m[1])
	}
	return resp.StatusCode, msg
}

// The attack of issue 29 against two replica processes on one PostgreSQL,
// with a lockout period of 3 s: 50 wrong passwords at one, then the right
// password is refused at both; once the period has passed it signs in. An
// unknown name is answered like the user, attempt after attempt.
func TestAuthServerLockoutAcrossReplicaProcesses(t *testing.T) {
	pg := pgtest.Start(t)
	const period = 3 * time.Second
	args := []string{"authserver", "--url", "http://auth.example.test", "--store", pg.URL(), "--seed-demo",
		"--lockout-period", period.String()}
	a := startChild(t, args...)
	b := startChild(t, args...)

	var fifth time.Time // before the fifth failure was sent: the lockout starts after it
	for i := 1; i <= 50; i++ {
		if i == 5 {
			fifth = time.Now()
		}
		status, msg := formSignIn(t, a.url, "marissa", "not-koala")
		nstatus, nmsg := formSignIn(t, a.url, "nobody-marissa", "not-koala")
		want := wrongPasswordText
		if i > 5 {
			want = lockedOutText
		}
		if status != http.StatusUnauthorized || msg != want || nstatus != status || nmsg != msg {
			t.Fatalf("attempt %d: the user got %d %q, the unknown name %d %q; want 401 %q for both", i, status, msg, nstatus, nmsg, want)
		}
	}
	for _, at := range []*child{a, b} {
		status, msg := formSignIn(t, at.url, "marissa", "koala")
		if since := time.Since(fifth); since >= period {
			t.Fatalf("this machine took %v for 45 refused attempts, past the lockout period of %v: the test cannot tell", since, period)
		}
		if status != http.StatusUnauthorized || msg != lockedOutText {
			t.Fatalf("the right password at %s within the period: %d %q", at.url, status, msg)
		}
	}
	time.Sleep(time.Until(fifth.Add(period)))
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, msg := formSignIn(t, b.url, "marissa", "koala")
		if status == http.StatusFound {
			break
		}
		if msg != lockedOutText || time.Now().After(deadline) {
			t.Fatalf("the right password after the period: %d %q", status, msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if lines := strings.Count(a.out.String(), "msg=UserAccountLocked"); lines != 2 {
		t.Errorf("%d UserAccountLocked events at a, want 2 (the user and the unknown name):\n%s", lines, a.out)
	}
}

// --password-min-length and friends reach the provisioning API; a bad
// policy stops the start.
func TestServeAuthServerPolicyFlags(t *testing.T) {
	r := start(t, nil, "serve", "authserver", "--port", "0", "--url", "http://127.0.0.1:9999",
		"--password-min-length", "8", "--password-require-digit", "1")
	base := r.addr(t)
	admin := clientCredentials(t, base, "admin", "adminsecret")
	req, _ := http.NewRequest(http.MethodPost, base+"/Users", strings.NewReader(
		`{"userName":"alice","password":"short","emails":[{"value":"alice@test.org"}]}`))
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/json")
	code, body := do(t, req)
	msg := "Password must be at least 8 characters in length. Password must contain at least 1 digit characters."
	want := `{"error":"invalid_password","error_description":"` + msg + `","message":"` + msg + `"}`
	if code != http.StatusBadRequest || strings.TrimSpace(body) != want {
		t.Fatalf("a short password: %d %s, want 400 %s", code, body, want)
	}
	// Bad values are refused before anything starts.
	for _, args := range [][]string{
		{"--lockout-period", "0s"},
		{"--lockout-count-within", "-1h"},
		{"--lockout-after-failures", "-1"},
		{"--password-max-length", "0"},
	} {
		fs := flag.NewFlagSet("authserver", flag.ContinueOnError)
		policies := authPolicyFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if _, _, err := policies(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
