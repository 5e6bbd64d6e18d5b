package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
)

// freePort is a free port as a flag value: the authorization server must
// know the greeting client's address before it starts, as in up --processes.
func freePort(t *testing.T) string { return strconv.Itoa(freeport.Get(t)) }

// TestServeFortuneAndGreetingAsTheHarnessStartsThem starts the three
// services with the command lines of up --processes, waits until each answers
// at its root, and walks the greeting flow with a cookie jar.
func TestServeFortuneAndGreetingAsTheHarnessStartsThem(t *testing.T) {
	a, f, g := freePort(t), freePort(t), freePort(t)
	authURL, fortuneURL, greetingURL := "http://127.0.0.1:"+a, "http://127.0.0.1:"+f, "http://127.0.0.1:"+g
	start(t, nil, "serve", "authserver", "--port", a, "--url", authURL, "--seed-demo",
		"--greeting-url", greetingURL+"/", "--fortune-url", fortuneURL+"/").addr(t)
	start(t, nil, "serve", "fortune", "--port", f, "--auth-url", authURL).addr(t)
	start(t, nil, "serve", "greeting", "--port", g, "--url", greetingURL, "--auth-url", authURL, "--fortune-url", fortuneURL).addr(t)
	for _, base := range []string{authURL, fortuneURL, greetingURL} {
		resp, err := (&http.Client{CheckRedirect: noFollow}).Get(base + "/")
		if err != nil {
			t.Fatalf("%s does not answer: %v", base, err)
		}
		resp.Body.Close()
	}
	if code, _ := httpGet(t, fortuneURL+"/"); code != http.StatusUnauthorized {
		t.Fatalf("fortune without a token: %d", code)
	}
	m := walkGreetingFlow(t, greetingURL)
	if m["user"] != "Marissa Bloggs" || m["fortune"] == "" {
		t.Fatalf("greeting page: %v", m)
	}
}

func noFollow(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

var (
	uaaCSRF    = regexp.MustCompile(`name="X-Uaa-Csrf" value="([^"]+)"`)
	scopeBoxes = regexp.MustCompile(`name="(scope\.\d+)" value="(scope\.[^"]+)"`)
)

// walkGreetingFlow plays a browser that follows redirects: the greeting
// client sends it to sign in (marissa / koala) and consent, then back; it
// returns the greeting page as JSON.
func walkGreetingFlow(t *testing.T, greetingURL string) map[string]any {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, page := fetch(t, c, http.MethodGet, greetingURL+"/", nil)
	if resp.Request.URL.Path != "/login" {
		t.Fatalf("not sent to sign in: %s", resp.Request.URL)
	}
	login := resp.Request.URL
	resp, page = fetch(t, c, http.MethodPost, login.ResolveReference(&url.URL{Path: "/login.do"}).String(), url.Values{
		"username": {"marissa"}, "password": {"koala"}, "X-Uaa-Csrf": {submatch(t, uaaCSRF, page)},
	})
	consent := url.Values{"X-Uaa-Csrf": {submatch(t, uaaCSRF, page)}, "user_oauth_approval": {"true"}}
	for _, m := range scopeBoxes.FindAllStringSubmatch(page, -1) {
		consent.Set(m[1], m[2])
	}
	resp, page = fetch(t, c, http.MethodPost, resp.Request.URL.ResolveReference(&url.URL{Path: "/oauth/authorize"}).String(), consent)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.String() != greetingURL+"/" || !strings.Contains(page, `<blockquote class="fortune">`) {
		t.Fatalf("after consent: %d at %s:\n%s", resp.StatusCode, resp.Request.URL, page)
	}
	req, _ := http.NewRequest(http.MethodGet, greetingURL+"/", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("JSON page: %d %v", resp.StatusCode, err)
	}
	return m
}

func fetch(t *testing.T, c *http.Client, method, target string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	return resp, string(page)
}

func submatch(t *testing.T, re *regexp.Regexp, s string) string {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in:\n%s", re, s)
	}
	return m[1]
}

var stackLine = regexp.MustCompile(`(?m)^\s+(fortune|greeting|authserver)\s+(http://\S+)`)

// TestUpRunsFortuneAndGreeting: up starts both after the authorization
// server, prints what to try, and the printed recipe works.
func TestUpRunsFortuneAndGreeting(t *testing.T) {
	r := start(t, nil, "up", "--data", filepath.Join(t.TempDir(), "data"))
	r.addr(t)
	out := r.stdout.String()
	urls := map[string]string{}
	for _, m := range stackLine.FindAllStringSubmatch(out, -1) {
		urls[m[1]] = m[2]
	}
	if urls["fortune"] == "" || urls["greeting"] == "" {
		t.Fatalf("no fortune or greeting URL in:\n%s", out)
	}
	for _, want := range []string{"sign in as marissa / koala", `"authorities":["fortunes.read"]`, "Authorization: Bearer $TOKEN"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	auth := strings.Replace(urls["authserver"], "localhost", "127.0.0.1", 1)
	fortuneURL := strings.Replace(urls["fortune"], "localhost", "127.0.0.1", 1)
	if code := getWithToken(t, fortuneURL+"/", readerToken(t, auth)); code != http.StatusOK {
		t.Fatalf("fortune with the recipe's token: %d", code)
	}
	if m := walkGreetingFlow(t, urls["greeting"]); m["fortune"] == "" {
		t.Fatalf("greeting page: %v", m)
	}
}

// readerToken follows the printed recipe: register a client with
// fortunes.read as the admin, and take its client_credentials token.
func readerToken(t *testing.T, auth string) string {
	t.Helper()
	admin := clientCredentials(t, auth, "admin", "adminsecret")
	req, _ := http.NewRequest(http.MethodPost, auth+"/oauth/clients", strings.NewReader(
		`{"client_id":"reader","client_secret":"reader-secret","authorized_grant_types":["client_credentials"],"authorities":["fortunes.read"]}`))
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("register reader: %d", resp.StatusCode)
	}
	return clientCredentials(t, auth, "reader", "reader-secret")
}

func TestServeFortuneAndGreetingArguments(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "fortune", "--token-validation", "magic"}, `invalid --token-validation "magic"; valid: check_token, introspection, jwt`},
		{[]string{"serve", "fortune", "--auth-url", "http://a", "--issuer", "http://b"}, "exclude each other"},
		{[]string{"serve", "fortune", "--issuer", "http://b"}, "needs the check_token URL too"},
		{[]string{"serve", "greeting", "--discovery-url", "http://b/x", "--auth-url", "http://a"}, "exclude each other"},
		{[]string{"serve", "fortune", "--cache-size", "-1"}, "invalid cache"},
		{[]string{"serve", "fortune", "--cache-ttl", "0s"}, "invalid cache"},
		{[]string{"serve", "fortune", "--token-validation", "jwt", "--cache-size", "5"}, "JWT validation makes no call to cache"},
		{[]string{"serve", "fortune", "--auth-url", "ftp://x"}, "invalid authorization server URL"},
		{[]string{"serve", "greeting", "--port", "0"}, "--url is required with --port 0"},
		{[]string{"serve", "greeting", "--port", "0", "--url", "http://x/app"}, "invalid the client's URL"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
		}
	}
	for svc, wants := range map[string][]string{
		"fortune": {"(default 8787)", "-auth-url", "-client-id", "-client-secret", "FORTUNE_CLIENT_SECRET", "-token-validation",
			"-cache-size", "-cache-ttl", "(default 30s)", "stays\naccepted", "-log-format", "-log-level", "-host",
			"-issuer", "-discovery-url", "-introspection-url", "-check-token-url", "-jwks-url", "-audience",
			"reference serve fortune --issuer http://127.0.0.1:9090 --token-validation introspection"},
		"greeting": {"(default 8100)", "-url", "-auth-url", "-fortune-url", "-client-id", "-client-secret", "GREETING_CLIENT_SECRET", "-log-format",
			"-issuer", "-discovery-url", "reference serve greeting --issuer http://127.0.0.1:9090"},
	} {
		code, stdout, _ := runCLI("serve", svc, "--help")
		for _, want := range wants {
			if code != exitOK || !strings.Contains(stdout, want) {
				t.Errorf("%s help lacks %q:\n%s", svc, want, stdout)
			}
		}
	}
}

// TestServeFailsFastOnDiscovery: an issuer whose discovery document
// cannot be had stops the start, naming the document's URL.
func TestServeFailsFastOnDiscovery(t *testing.T) {
	issuer := "http://127.0.0.1:" + freePort(t)
	for _, args := range [][]string{
		{"serve", "fortune", "--port", "0", "--issuer", issuer, "--token-validation", "introspection"},
		{"serve", "greeting", "--port", "0", "--url", "http://127.0.0.1:1", "--issuer", issuer},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitError || !strings.Contains(stderr, "discovery document at "+issuer+"/.well-known/openid-configuration") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestFortuneSecretFromTheEnvironment: without --client-secret the secret
// comes from FORTUNE_CLIENT_SECRET; a wrong one is a 503, not a fortune.
func TestFortuneSecretFromTheEnvironment(t *testing.T) {
	a := freePort(t)
	authURL := "http://127.0.0.1:" + a
	start(t, nil, "serve", "authserver", "--port", a, "--url", authURL, "--seed-demo").addr(t)
	token := readerToken(t, authURL)
	for secret, want := range map[string]int{"fortune-secret": http.StatusOK, "wrong": http.StatusServiceUnavailable} {
		r := start(t, map[string]string{"FORTUNE_CLIENT_SECRET": secret}, "serve", "fortune", "--port", "0", "--auth-url", authURL)
		code := getWithToken(t, r.addr(t)+"/", token)
		if code != want {
			t.Errorf("secret %q: %d, want %d", secret, code, want)
		}
	}
}

func getWithToken(t *testing.T, target, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
