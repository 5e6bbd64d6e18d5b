package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/pgtest"
	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// asReferenceEnv makes the test binary run main instead of the tests: the
// process tests start the real command, `reference serve ...`, as a child.
const asReferenceEnv = "REFERENCE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asReferenceEnv) == "1" {
		main()
		return
	}
	os.Exit(rabbittest.Main(m)) // stops the tests' broker, if one was started
}

// child is `reference serve ...` running in a process of its own.
type child struct {
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{}
	url  string // from --ready-file
}

// startChild runs `reference serve args... --port 0 --ready-file F` and
// waits until F names its URL.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	c := &child{out: &syncbuf.Buffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], append(append([]string{"serve"}, args...), "--port", "0", "--ready-file", ready)...)
	c.cmd.Env = append(os.Environ(), asReferenceEnv+"=1")
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.kill(t) })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(ready); err == nil {
			c.url = strings.TrimSpace(string(b))
			return c
		}
		select {
		case <-c.done:
			t.Fatalf("reference %s exited at start:\n%s", strings.Join(args, " "), c.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("reference %s: no ready file after 30s:\n%s", strings.Join(args, " "), c.out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill sends SIGKILL to the child (by its pid only) and waits for it: no
// shutdown, no last write, as in a crash.
func (c *child) kill(t *testing.T) {
	t.Helper()
	select {
	case <-c.done:
		return
	default:
	}
	if err := syscall.Kill(c.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("pid %d still running 10s after SIGKILL", c.cmd.Process.Pid)
	}
}

// The client a test registers through the API: client_credentials, and the
// authz.resource authority to call check_token.
const (
	lateClient = "late"
	lateSecret = "late-secret"
)

// registerClient registers lateClient at base with the admin client's token.
func registerClient(t *testing.T, base string) {
	t.Helper()
	admin := clientCredentials(t, base, "admin", "adminsecret")
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth/clients", strings.NewReader(
		`{"client_id":"`+lateClient+`","client_secret":"`+lateSecret+`","authorized_grant_types":["client_credentials"],`+
			`"authorities":["fortunes.read","authz.resource"]}`))
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("registering a client: %d %s", resp.StatusCode, body)
	}
}

// checkTokenAt calls check_token at base as lateClient.
func checkTokenAt(t *testing.T, base, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/check_token", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(lateClient, lateSecret)
	return do(t, req)
}

// kidOf is the key id in a JWT's header.
func kidOf(t *testing.T, token string) string {
	t.Helper()
	head, _, _ := strings.Cut(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Kid == "" {
		t.Fatalf("no kid in %s: %v", b, err)
	}
	return h.Kid
}

// jwksKids are the key ids /token_keys publishes at base.
func jwksKids(t *testing.T, base string) []string {
	t.Helper()
	code, body := httpGet(t, base+"/token_keys")
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(body), &set); err != nil || code != http.StatusOK {
		t.Fatalf("/token_keys: %d %s", code, body)
	}
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k.Kid)
	}
	return kids
}

// issued is what a test obtained from one process, to check at another.
type issued struct{ admin, late, kid string }

func issue(t *testing.T, base string) issued {
	t.Helper()
	registerClient(t, base)
	is := issued{admin: clientCredentials(t, base, "admin", "adminsecret"), late: clientCredentials(t, base, lateClient, lateSecret)}
	is.kid = kidOf(t, is.late)
	return is
}

// verify checks at base what issue did elsewhere (or before a restart).
func verify(t *testing.T, base string, is issued) {
	t.Helper()
	for name, tok := range map[string]string{"admin": is.admin, lateClient: is.late} {
		if code, body := checkTokenAt(t, base, tok); code != http.StatusOK || !strings.Contains(body, `"client_id":"`+name+`"`) {
			t.Fatalf("check_token of the %s token issued before: %d %s", name, code, body)
		}
	}
	// The client is still registered: its grant works.
	clientCredentials(t, base, lateClient, lateSecret)
	kids := jwksKids(t, base)
	if !strings.Contains(strings.Join(kids, " "), is.kid) {
		t.Fatalf("the JWKS %v lacks %s, the key that signed the tokens", kids, is.kid)
	}
}

// The real command, killed with SIGKILL and started again on the same
// --data directory, keeps the clients registered through the API, accepts
// the tokens it issued before, and still publishes the key that signed them.
func TestAuthServerProcessKilledAndRestartedOnItsData(t *testing.T) {
	data := t.TempDir()
	args := []string{"authserver", "--url", "http://auth.example.test", "--data", data}
	first := startChild(t, args...)
	is := issue(t, first.url)
	first.kill(t)

	second := startChild(t, args...)
	verify(t, second.url, is)
	// And a second crash loses nothing written after the first restart.
	more := clientCredentials(t, second.url, lateClient, lateSecret)
	second.kill(t)
	third := startChild(t, args...)
	verify(t, third.url, is)
	if code, body := checkTokenAt(t, third.url, more); code != http.StatusOK {
		t.Fatalf("check_token of a token issued after the first restart: %d %s", code, body)
	}
}

// Two processes on one PostgreSQL are replicas: a token issued by one
// passes check_token at the other, a client registered at one is known to
// the other, and both publish the same signing key.
func TestAuthServerReplicaProcessesOnOnePostgres(t *testing.T) {
	pg := pgtest.Start(t)
	args := []string{"authserver", "--url", "http://auth.example.test", "--store", pg.URL()}
	a := startChild(t, args...)
	b := startChild(t, args...)
	verify(t, b.url, issue(t, a.url))
	// The other way round, with a token b issued.
	tok := clientCredentials(t, b.url, lateClient, lateSecret)
	if code, body := checkTokenAt(t, a.url, tok); code != http.StatusOK {
		t.Fatalf("check_token at a of a token issued by b: %d %s", code, body)
	}
}
