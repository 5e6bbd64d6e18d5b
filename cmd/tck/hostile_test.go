package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/hostile"
	"github.com/fortune-tck/fortune-tck/internal/testbin"
)

// The tests of this file run the built tck, as a tester would, against internal/hostile: an implementation
// that never answers, trickles, floods, sends the browsers to a server no target file names, and echoes
// secrets. Whatever it does, a run must end within its deadline and within 2 s of Ctrl-C, stay under 200 MB,
// send nothing to the undeclared server, write nothing outside its reports folder, and show no fixture secret
// in any report file or on the terminal.

// maxRSS is the most memory a run may hold, whatever the target sends.
const maxRSS = 200 << 20

// builtTCK is tck built once from this checkout, for every test of the package.
func builtTCK(t *testing.T) string { return testbin.Path(t, "tck") }

// TestMain removes the binaries testbin built.
func TestMain(m *testing.M) { testbin.Main(m) }

// sandbox is where a run may write: its working directory, HOME and TMPDIR are fresh folders, the reports go to
// work/reports, and anything else found in the three afterwards was written outside the reports folder.
type sandbox struct {
	work, home, tmp, reports string
}

func newSandbox(t *testing.T) sandbox {
	// A short path: Chromium's sockets live under TMPDIR, and a socket's path has at most 107 bytes.
	root, err := os.MkdirTemp("", "tck-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	s := sandbox{work: filepath.Join(root, "work"), home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	s.reports = filepath.Join(s.work, "reports")
	for _, d := range []string{s.work, s.home, s.tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// strays are the files a run left outside its reports folder. One folder is not the run's: godog's package
// runs `go env GOTOOLDIR` when the program starts, and the go command keeps its telemetry counters under
// $XDG_CONFIG_HOME/go (nothing of the target's goes there).
func (s sandbox) strays() []string {
	var out []string
	for _, root := range []string{s.work, s.home, s.tmp} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch path {
			case root:
				return nil
			case s.reports, filepath.Join(s.home, ".config", "go"):
				return filepath.SkipDir
			case filepath.Join(s.home, ".config"):
				return nil
			}
			out = append(out, path)
			return nil
		})
	}
	return out
}

// tckRun is one tck process against a target file.
type tckRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	peak           int64 // the process's high-water mark of resident memory, in bytes
	err            error
	ended          time.Time
}

// startRun starts tck run against the target YAML in the sandbox.
func startRun(t *testing.T, sb sandbox, targetYAML string, args ...string) *tckRun {
	t.Helper()
	file := filepath.Join(sb.home, "..", "target.yaml")
	if err := os.WriteFile(file, []byte(targetYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &tckRun{done: make(chan struct{})}
	r.cmd = exec.Command(builtTCK(t), append([]string{"run", "--target", file, "--reports", sb.reports}, args...)...)
	r.cmd.Dir = sb.work
	r.cmd.Env = append(os.Environ(), "HOME="+sb.home, "TMPDIR="+sb.tmp, "XDG_CONFIG_HOME="+sb.home+"/.config",
		"XDG_CACHE_HOME="+sb.home+"/.cache", "XDG_DATA_HOME="+sb.home+"/.local/share", "XDG_DOWNLOAD_DIR="+sb.home+"/Downloads")
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go r.watch()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// watch waits for the process and follows its memory's high-water mark (VmHWM: its own, not its browser's).
func (r *tckRun) watch() {
	exited := make(chan struct{})
	go func() {
		r.err = r.cmd.Wait()
		r.ended = time.Now()
		close(exited)
	}()
	status := fmt.Sprintf("/proc/%d/status", r.cmd.Process.Pid)
	for {
		if data, err := os.ReadFile(status); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmHWM:" {
					if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb<<10 > r.peak {
						r.peak = kb << 10
					}
				}
			}
		}
		select {
		case <-exited:
			close(r.done)
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// wait waits for the run to end within limit and returns its exit status.
func (r *tckRun) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(limit):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("tck did not end within %s\nstdout:\n%s\nstderr:\n%s", limit, tail(r.stdout.String()), tail(r.stderr.String()))
	}
	var exit *exec.ExitError
	if errors.As(r.err, &exit) {
		return exit.ExitCode()
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return 0
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// checkSafe checks what every run against a hostile target must hold: under maxRSS, nothing to the undeclared
// server, nothing outside the reports folder, no secret in the reports or on the terminal, no escape sequence
// on the terminal.
func checkSafe(t *testing.T, r *tckRun, sb sandbox, srv *hostile.Server) {
	t.Helper()
	if r.peak == 0 || r.peak > maxRSS {
		t.Errorf("tck's memory peaked at %d MiB, want under %d MiB", r.peak>>20, maxRSS>>20)
	}
	t.Logf("memory peak %d MiB", r.peak>>20)
	if n := srv.Undeclared.Hits(); n != 0 {
		t.Errorf("the undeclared server got %d connections: %v", n, srv.Undeclared.Seen())
	}
	if s := sb.strays(); len(s) > 0 {
		t.Errorf("the run wrote outside its reports folder: %v", s)
	}
	secrets := append([]string{hostile.Password, hostile.ClientSecret, hostile.RepoPassword, hostile.MetadataSecret}, srv.Tokens()...)
	outputs := map[string]string{"stdout": r.stdout.String(), "stderr": r.stderr.String()}
	_ = filepath.WalkDir(sb.reports, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			outputs[path] = string(data)
		}
		return nil
	})
	for name, text := range outputs {
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows the secret %q", name, secret)
			}
		}
	}
	for _, name := range []string{"stdout", "stderr"} {
		if i := strings.IndexAny(outputs[name], "\x1b\x07\u202e"); i >= 0 {
			t.Errorf("%s carries a control sequence of the target: %q", name, outputs[name][max(0, i-80):min(len(outputs[name]), i+40)])
		}
	}
}

func startHostile(t *testing.T, b hostile.Behaviour) *hostile.Server {
	t.Helper()
	s, err := hostile.Start(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// configTarget is a target whose configuration repository is one of the hostile server's.
func configTarget(s *hostile.Server, repo string) string {
	return fmt.Sprintf(`implementation: {project: hostile}
services:
  configServer:
    url: %s
    repository: {uri: %s/%s, username: %s, password: %s}
`, s.URL, s.URL, repo, hostile.RepoUser, hostile.RepoPassword)
}

// authTarget is a target whose authorization server, fortune service and greeting client are the hostile
// server's.
func authTarget(s *hostile.Server) string {
	return fmt.Sprintf(`implementation: {project: hostile}
services:
  authServer:
    issuer: %s
    fixtures:
      users: {reader: {username: %s, password: %s, email: %s}}
      clients:
        web: {clientId: %s, clientSecret: %s, redirectUri: "%s", authMethod: client_secret_post}
  fortune: {url: %s}
  greeting: {url: %s}
`, s.URL, hostile.User, hostile.Password, hostile.Email, hostile.ClientID, hostile.ClientSecret, hostile.RedirectURI, s.URL, s.GreetingURL)
}

// A git server that never answers, or trickles, holds the run no longer than its --timeout, which is one
// run error that names what it was waiting for.
func TestAGitServerThatNeverAnswersEndsWithTheRunsTimeout(t *testing.T) {
	for _, repo := range []string{"silent.git", "trickle.git"} {
		t.Run(repo, func(t *testing.T) {
			srv := startHostile(t, hostile.Behaviour{})
			sb := newSandbox(t)
			builtTCK(t)
			began := time.Now()
			r := startRun(t, sb, configTarget(srv, repo), "--timeout", "3s")
			code := r.wait(t, 20*time.Second)
			if took := r.ended.Sub(began); took > 6*time.Second {
				t.Errorf("the run took %s with --timeout 3s", took.Round(100*time.Millisecond))
			}
			if code != exitRunError || !strings.Contains(r.stderr.String(), "--timeout 3s") ||
				!strings.Contains(r.stderr.String(), "listing the refs of "+srv.URL+"/"+repo) {
				t.Errorf("status %d, stderr:\n%s", code, r.stderr.String())
			}
			page, _ := os.ReadFile(filepath.Join(sb.reports, "index.html"))
			if !strings.Contains(string(page), "listing the refs of") {
				t.Errorf("index.html does not say what the run waited for:\n%s", page)
			}
			checkSafe(t, r, sb, srv)
		})
	}
}

// Ctrl-C while the run waits for a git server that never answers ends it within 2 s.
func TestCtrlCEndsARunWithin2s(t *testing.T) {
	srv := startHostile(t, hostile.Behaviour{})
	sb := newSandbox(t)
	r := startRun(t, sb, configTarget(srv, "silent.git"))
	time.Sleep(1500 * time.Millisecond) // the preflight is waiting for the repository by now
	sent := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := r.wait(t, 20*time.Second)
	if took := r.ended.Sub(sent); took > 2*time.Second {
		t.Errorf("tck ended %s after Ctrl-C, want within 2 s", took.Round(10*time.Millisecond))
	}
	if code != exitInterrupted || !strings.Contains(r.stderr.String(), "tck: interrupted") {
		t.Errorf("status %d, stderr:\n%s", code, r.stderr.String())
	}
	checkSafe(t, r, sb, srv)
}

// A ref list without end, and answers with 8 MiB of headers, are cut where the harness stops reading: the run
// is one run error that says why, within its memory.
func TestFloodsAreCutAndSaidSo(t *testing.T) {
	srv := startHostile(t, hostile.Behaviour{})
	sb := newSandbox(t)
	r := startRun(t, sb, configTarget(srv, "endless.git"))
	if code := r.wait(t, 60*time.Second); code != exitRunError || !strings.Contains(r.stderr.String(), "more than 4 MiB as its list of refs") {
		t.Errorf("endless refs: status %d, stderr:\n%s", code, r.stderr.String())
	}
	checkSafe(t, r, sb, srv)

	flood := startHostile(t, hostile.Behaviour{HeaderFlood: 8 << 20})
	sb = newSandbox(t)
	r = startRun(t, sb, authTarget(flood))
	if code := r.wait(t, 60*time.Second); code != exitRunError || !strings.Contains(r.stderr.String(), "headers exceeded") {
		t.Errorf("8 MiB of headers: status %d, stderr:\n%s", code, r.stderr.String())
	}
	checkSafe(t, r, sb, flood)
}

// An authorization endpoint or a discovery document that sends the harness to a server the target file does
// not name is one run error that says where, and that server gets nothing; the repository's credentials an
// error page echoes are masked.
func TestRedirectsToAnUndeclaredOriginAreNamedNotFollowed(t *testing.T) {
	for _, c := range []struct {
		name string
		b    hostile.Behaviour
		want string
	}{
		{"authorize", hostile.Behaviour{AuthorizeAway: true}, "the server sent the browser from "},
		{"discovery", hostile.Behaviour{DiscoveryAway: true}, "names userinfo_endpoint "},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startHostile(t, c.b)
			sb := newSandbox(t)
			r := startRun(t, sb, authTarget(srv))
			code := r.wait(t, 60*time.Second)
			if code != exitRunError || !strings.Contains(r.stderr.String(), c.want) || !strings.Contains(r.stderr.String(), srv.Undeclared.URL) ||
				!strings.Contains(r.stderr.String(), "allowedOrigins") {
				t.Errorf("status %d, stderr:\n%s", code, r.stderr.String())
			}
			checkSafe(t, r, sb, srv)
		})
	}
	t.Run("echoing git server", func(t *testing.T) {
		srv := startHostile(t, hostile.Behaviour{})
		sb := newSandbox(t)
		r := startRun(t, sb, configTarget(srv, "echo.git"))
		if code := r.wait(t, 60*time.Second); code != exitRunError {
			t.Errorf("status %d, stderr:\n%s", code, r.stderr.String())
		}
		checkSafe(t, r, sb, srv)
	})
}

// Scenarios against an authorization server that echoes every secret, signs in with GET and a field named
// pw, puts escape sequences in its errors, floods headers and pages, and a greeting client whose page plants a
// download and reaches for the undeclared server from Chromium: they fail, and none of it leaks.
func TestScenariosAgainstAHostileTargetLeakNothing(t *testing.T) {
	srv := startHostile(t, hostile.Behaviour{GETSignIn: true, Echo: true, Escapes: true, HeaderFlood: 192 << 10,
		PageFlood: 900 << 10, GreetingAway: true})
	sb := newSandbox(t)
	r := startRun(t, sb, authTarget(srv), "--tags", "@spec-4.1-post-oauth-token,@spec-4.1-get-userinfo,@browser", "--timeout", "2m")
	code := r.wait(t, 3*time.Minute)
	if code != exitFailed {
		t.Fatalf("status %d, want %d (scenarios failed)\nstdout:\n%s\nstderr:\n%s", code, exitFailed, tail(r.stdout.String()), r.stderr.String())
	}
	for _, f := range []string{"conformance-report.yaml", "junit.xml", "cucumber.json", "index.html"} {
		if fi, err := os.Stat(filepath.Join(sb.reports, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s missing or empty: %v", f, err)
		}
	}
	// The hostile behaviours were exercised: the terminal shows their traces, cleaned.
	for _, want := range []string{"refresh_token=*** the password is ***", "Bearer *** the password is ***", `Internal error\x1b]0;pwned\x07`,
		"Chromium shows " + srv.Undeclared.URL + "/latest/meta-data/"} {
		if !strings.Contains(r.stdout.String(), want) {
			t.Errorf("the terminal does not show %q: the hostile behaviour was not exercised\n%s", want, tail(r.stdout.String()))
		}
	}
	if cucumber, _ := os.ReadFile(filepath.Join(sb.reports, "cucumber.json")); !strings.Contains(string(cucumber), "the password is ***") {
		t.Error("cucumber.json shows no masked echo: the hostile behaviour was not exercised")
	}
	checkSafe(t, r, sb, srv)
	t.Logf("%s; memory peak %d MiB", strings.TrimSpace(lastLine(r.stdout.String(), "passed, ")), r.peak>>20)
}

// lastLine is the last line of text that holds what.
func lastLine(text, what string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], what) {
			return lines[i]
		}
	}
	return ""
}
