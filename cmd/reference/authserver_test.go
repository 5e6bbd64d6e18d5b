package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeAuthServerAsTheHarnessStartsIt: the harness starts the server
// with --port and --url, polls /healthz and provisions with admin/adminsecret.
func TestServeAuthServerAsTheHarnessStartsIt(t *testing.T) {
	r := start(t, nil, "serve", "authserver", "--port", "0", "--url", "http://127.0.0.1:9999")
	base := r.addr(t)
	if code, body := httpGet(t, base+"/healthz"); code != 200 || body != "ok" {
		t.Fatalf("healthz: %d %q", code, body)
	}
	tok := clientCredentials(t, base, "admin", "adminsecret")
	if iss := jwtClaim(t, tok, "iss"); iss != "http://127.0.0.1:9999/oauth/token" {
		t.Fatalf("iss %v", iss)
	}
	if code, _ := httpGet(t, base+"/oauth/clients/greeting"); code != http.StatusUnauthorized {
		t.Fatalf("no demo seed expected without a token: %d", code)
	}
	if code := r.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, r.stderr)
	}
}

func TestServeAuthServerWithDemoSeed(t *testing.T) {
	r := start(t, nil, "serve", "authserver", "--port", "0", "--url", "http://localhost:9000",
		"--seed-demo", "--admin-client", "root", "--admin-secret", "s3cret", "--access-token-ttl", "10m")
	base := r.addr(t)
	tok := clientCredentials(t, base, "root", "s3cret")
	if exp, iat := jwtClaim(t, tok, "exp").(float64), jwtClaim(t, tok, "iat").(float64); exp-iat > 600 {
		t.Fatalf("--access-token-ttl ignored: %v", exp-iat)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/oauth/clients/greeting", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"redirect_uri":["http://localhost:8100/"]`) {
		t.Fatalf("demo greeting client: %d %s", resp.StatusCode, body)
	}
}

func TestServeAuthServerBadArguments(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "authserver", "--port", "0"}, "--url is required with --port 0"},
		{[]string{"serve", "authserver", "--port", "0", "--url", "ftp://x"}, "invalid URL"},
		{[]string{"serve", "authserver", "--port", "0", "--url", "http://x", "--access-token-ttl", "0s"}, "must be positive"},
		{[]string{"serve", "authserver", "--port", "0", "--url", "http://x", "--code-ttl", "-1s"}, "--code-ttl must be positive"},
		{[]string{"serve", "authserver", "--port", "0", "--url", "http://x", "--admin-client", "a:b"}, "admin client"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
		}
	}
	// A store that cannot be opened stops the start, naming its place;
	// there is no fall-back to memory.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "authserver", "--port", "0", "--url", "http://x", "--store", "postgres://u:pw@127.0.0.1:1/db?connect_timeout=2"}, "store postgres://u:xxxxx@127.0.0.1:1/db"},
		{[]string{"serve", "authserver", "--port", "0", "--url", "http://x", "--data", "/proc/no-such-dir"}, "store /proc/no-such-dir/authserver.db"},
	} {
		code, _, stderr := runCLI(tt.args...)
		if code != exitError || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
		}
	}
	code, stdout, _ := runCLI("serve", "authserver", "--help")
	for _, want := range []string{"-url", "-admin-client", "-admin-secret", "-seed-demo", "-greeting-url", "-access-token-ttl", "-refresh-token-ttl", "-code-ttl", "(default 9000)", "-log-format",
		"-data", "-store", "-key-rotation", "authserver.db", "PostgreSQL"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("help lacks %s:\n%s", want, stdout)
		}
	}
}

var authServerLine = regexp.MustCompile(`(?m)^\s+authserver\s+(http://\S+)`)

func TestUpRunsTheAuthServer(t *testing.T) {
	r := start(t, nil, "up", "--data", filepath.Join(t.TempDir(), "data"))
	r.addr(t)
	out := r.stdout.String()
	m := authServerLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no authserver URL in:\n%s", out)
	}
	for _, want := range []string{"admin / adminsecret", "marissa / koala", "greeting / greeting-secret", "fortune / fortune-secret", "/check_token"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	tok := clientCredentials(t, strings.Replace(m[1], "localhost", "127.0.0.1", 1), "admin", "adminsecret")
	if iss := jwtClaim(t, tok, "iss"); iss != m[1]+"/oauth/token" {
		t.Fatalf("iss %v, want %s/oauth/token", iss, m[1])
	}
}

func clientCredentials(t *testing.T, base, id, secret string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("client credentials: %d %v", resp.StatusCode, err)
	}
	return body.AccessToken
}

func jwtClaim(t *testing.T, token, name string) any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	var claims map[string]any
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims[name]
}
