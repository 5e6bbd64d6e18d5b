package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// syncBuffer is written by the running command and read by the test.
type syncBuffer = syncbuf.Buffer

// running is the command started in process, as main starts it.
type running struct {
	stdout, stderr *syncBuffer
	addrs          chan string
	cancel         context.CancelFunc
	done           chan int
}

func start(t *testing.T, env map[string]string, args ...string) *running {
	t.Helper()
	r := &running{stdout: &syncBuffer{}, stderr: &syncBuffer{}, addrs: make(chan string, 8), done: make(chan int, 1)}
	c := &cli{
		stdout: r.stdout, stderr: r.stderr,
		getenv:    func(k string) string { return env[k] },
		listening: func(_, addr string) { r.addrs <- addr },
		ports:     map[string]int{"configserver": 0, "quotes": 0, "configapp": 0, "authserver": 0, "fortune": 0, "greeting": 0, "gateway": 0},
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- c.run(ctx, args) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// addr waits until the command listens, or fails with its output.
func (r *running) addr(t *testing.T) string {
	t.Helper()
	select {
	case a := <-r.addrs:
		return "http://" + a
	case code := <-r.done:
		r.done <- code
		t.Fatalf("exited with %d before listening:\n%s%s", code, r.stdout, r.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("not listening after 10s")
	}
	return ""
}

func (r *running) stop(t *testing.T) int {
	t.Helper()
	r.cancel()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(15 * time.Second):
		t.Fatal("no graceful shutdown after 15s")
		return -1
	}
}

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	c := &cli{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := c.run(context.Background(), args)
	return code, stdout.String(), stderr.String()
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

// do sends req and returns the status and body of the answer.
func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// bareRepo makes a bare repository with one commit, as the harness does.
func bareRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	repo, err := git.PlainInit(work, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	_, err = wt.Commit("init", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "repo.git")
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: work}); err != nil {
		t.Fatal(err)
	}
	return bare
}

func TestServeConfigServerAsTheHarnessStartsIt(t *testing.T) {
	bare := bareRepo(t, map[string]string{"app.yml": "greeting:\n  message: hi\n"})
	r := start(t, nil, "serve", "configserver", "--port", "0", "--uri", "file://"+bare, "--basedir", t.TempDir()+"/base")
	base := r.addr(t)
	if code, body := httpGet(t, base+"/health"); code != 200 || !strings.Contains(body, `"UP"`) {
		t.Fatalf("health: %d %s", code, body)
	}
	if code, body := httpGet(t, base+"/app/default"); code != 200 || !strings.Contains(body, `"greeting.message":"hi"`) {
		t.Fatalf("environment: %d %s", code, body)
	}
	if code := r.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, r.stderr)
	}
	if !strings.Contains(r.stderr.String(), "shutting down") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	for _, line := range strings.Split(r.stderr.String(), "\n") {
		if strings.Count(line, "service=configserver") > 1 {
			t.Errorf("a log line names the service twice: %s", line)
		}
	}
}

func TestServeConfigServerJSONLogs(t *testing.T) {
	bare := bareRepo(t, map[string]string{"app.yml": "k: v\n"})
	r := start(t, nil, "serve", "configserver", "--port=0", "--uri", bare, "--log-format", "json", "--log-level", "debug")
	base := r.addr(t)
	httpGet(t, base+"/app/default")
	r.stop(t)
	if !strings.Contains(r.stderr.String(), `"msg":"request"`) {
		t.Fatalf("want JSON debug logs, got:\n%s", r.stderr)
	}
}

func TestServeConfigServerMissingRepositoryFailsAtStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.git")
	code, _, stderr := runCLI("serve", "configserver", "--port", "0", "--uri", missing)
	if code != exitError || !strings.Contains(stderr, "cannot clone "+missing) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestUpCreatesTheDemoRepositoryOnce(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for i, want := range []string{"created now", "existing"} {
		r := start(t, nil, "up", "--data", data)
		base := r.addr(t)
		code, body := httpGet(t, base+"/greeting-config/dev")
		if code != 200 || !strings.Contains(body, `"greeting.displayFortune":true`) {
			t.Fatalf("start %d: %d %s", i, code, body)
		}
		out := r.stdout.String()
		shown := strings.Replace(base, "127.0.0.1", "localhost", 1)
		for _, s := range []string{"configserver", shown, "curl " + shown + "/greeting-config/default", "(" + want + ")", filepath.Join(data, "config-repo")} {
			if !strings.Contains(out, s) {
				t.Errorf("start %d: stdout lacks %q:\n%s", i, s, out)
			}
		}
		if code := r.stop(t); code != exitOK {
			t.Fatalf("start %d: exit %d\n%s", i, code, r.stderr)
		}
	}
	repo, err := git.PlainOpen(filepath.Join(data, "config-repo"))
	if err != nil {
		t.Fatal(err)
	}
	commits, _ := repo.Log(&git.LogOptions{})
	n := 0
	_ = commits.ForEach(func(*object.Commit) error { n++; return nil })
	if n != 1 {
		t.Fatalf("demo repository has %d commits, want 1", n)
	}
}

func TestUpDefaultDataDirectory(t *testing.T) {
	c := &cli{getenv: func(k string) string { return map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}[k] }}
	if got := c.defaultDataDir(); got != "/xdg/fortune-tck" {
		t.Fatalf("with XDG_DATA_HOME: %s", got)
	}
	c.getenv = func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }
	if got := c.defaultDataDir(); got != "/home/u/.local/share/fortune-tck" {
		t.Fatalf("with HOME: %s", got)
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"reference up", "reference serve SERVICE", "configserver", "8888"}},
		{[]string{"help"}, []string{"reference up"}},
		{[]string{"serve", "--help"}, []string{"reference serve SERVICE", "configserver"}},
		{[]string{"up", "--help"}, []string{"-data", "-host", "-log-format", "-log-level", "configserver"}},
		{[]string{"serve", "configserver", "--help"}, []string{
			"-port", "-uri", "-host", "-basedir", "-default-label", "-username", "-password",
			"CONFIG_GIT_PASSWORD", "-log-format", "-log-level", "-lazy-clone", "-fetch-timeout", "(default 8888)",
			"larger than 4 MiB is refused",
		}},
		{[]string{"serve", "configserver", "--uri", "x", "-h"}, []string{"-uri"}},
		{[]string{"--help"}, []string{"quotes", "8081", "configapp", "8080"}},
		{[]string{"serve", "quotes", "--help"}, []string{"-port", "(default 8081)", "quoters"}},
		{[]string{"serve", "configapp", "--help"}, []string{
			"SPRING_PROFILES_ACTIVE", "-port", "(default 8080)", "-host", "-name", "(default \"greeting-config\")",
			"-config-url", "http://localhost:8888", "-label", "-bus", "-paths", "-start-retries", "(default 4)", "-log-format", "-log-level",
		}},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(tt.args...)
		if code != exitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: help lacks %q:\n%s", tt.args, w, stdout)
			}
		}
	}
}

func TestBadArguments(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "Usage:"},
		{[]string{"down"}, `unknown command "down"; valid commands: up, serve`},
		{[]string{"serve"}, "Usage: reference serve SERVICE"},
		{[]string{"serve", "nope"}, `unknown service "nope"; valid services: configserver, quotes, configapp, authserver, fortune, greeting`},
		{[]string{"serve", "configapp", "--start-retries", "-1"}, "invalid --start-retries -1"},
		{[]string{"serve", "configapp", "--log-level", "loud"}, `invalid --log-level "loud"`},
		{[]string{"serve", "configserver"}, "--uri is required"},
		{[]string{"serve", "configserver", "--uri", "x", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"serve", "configserver", "--uri", "x", "--port", "x"}, `invalid value "x" for flag -port`},
		{[]string{"serve", "configserver", "--uri", "x", "--port", "70000"}, "invalid --port 70000"},
		{[]string{"serve", "configserver", "--uri", "x", "--log-format", "xml"}, `invalid --log-format "xml"; valid: text, json`},
		{[]string{"serve", "configserver", "--uri", "x", "--log-level", "loud"}, `invalid --log-level "loud"`},
		{[]string{"serve", "configserver", "--uri", "x", "extra"}, `unexpected argument "extra"`},
		{[]string{"up", "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"up", "--port", "nope=1"}, `no service "nope"; the services: configserver`},
		{[]string{"up", "--port", "fortune=99999"}, `"fortune=99999": write SERVICE=PORT`},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestBusyPortFails(t *testing.T) {
	bare := bareRepo(t, map[string]string{"app.yml": "k: v\n"})
	r := start(t, nil, "serve", "configserver", "--port", "0", "--uri", bare)
	addr := strings.TrimPrefix(r.addr(t), "http://")
	port := addr[strings.LastIndex(addr, ":")+1:]
	code, _, stderr := runCLI("serve", "configserver", "--port", port, "--uri", bare)
	if code != exitError || !strings.Contains(stderr, "cannot listen") || !strings.Contains(stderr, "stop it, or give another --port") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A second stack on a port the first holds says how to move the service (configserver binds first).
	code, _, stderr = runCLI("up", "--data", t.TempDir(), "--port", "configserver="+port)
	if code != exitError || !strings.Contains(stderr, "configserver cannot listen on 127.0.0.1:"+port) ||
		!strings.Contains(stderr, "another stack of the reference (make demo, reference up): stop it, or move configserver with --port configserver=PORT") {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	// The gateway binds its listeners itself, when it is built; its taken port says the same.
	args := []string{"up", "--data", t.TempDir(), "--port", "gateway=" + port}
	for _, s := range []string{"configserver", "quotes", "configapp", "authserver", "fortune", "greeting"} {
		args = append(args, "--port", s+"=0")
	}
	code, _, stderr = runCLI(args...)
	if code != exitError || !strings.Contains(stderr, "stop it, or move gateway with --port gateway=PORT") {
		t.Fatalf("up, gateway: exit %d: %s", code, stderr)
	}
}
