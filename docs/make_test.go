package docs

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// The README's first commands, run with make as a newcomer runs them, on a copy of the checkout (its files as
// git sees them, uncommitted edits included, without .data/, bin/ or reports/): make demo serves the demo
// configuration and stops on Ctrl-C; make conformance TAGS=@spec-4.4 boots the reference, runs the scenarios
// of spec 4.4 and writes the reports. The demo's ports are moved to free ones (ARGS, as the README's operations
// page says), so that the test does not take the default ports other tests and a running demo hold.
func TestTheREADMEsMakeCommandsOnACopyOfTheCheckout(t *testing.T) {
	needs.Program(t, "make", "redis-server")
	for _, cmd := range []string{"make demo", "make conformance TAGS=@spec-4.4"} {
		if len(exercisedBy[cmd]) == 0 {
			t.Fatalf("the README no longer shows %q", cmd)
		}
	}
	dir := copyCheckout(t)
	// -trimpath: builds in the copy share the build cache from one copy to the next.
	env := append(os.Environ(), "GOFLAGS=-trimpath")

	t.Run("make demo", func(t *testing.T) {
		var ports []string
		for _, s := range []string{"authserver", "fortune", "greeting", "configserver", "configapp", "quotes", "gateway"} {
			ports = append(ports, "--port "+s+"=0")
		}
		out := &syncbuf.Buffer{}
		demo := exec.Command("make", "demo", "ARGS="+strings.Join(ports, " "))
		demo.Dir, demo.Env, demo.Stdout, demo.Stderr = dir, env, out, out
		demo.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := demo.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- demo.Wait() }()
		defer func() { _ = syscall.Kill(-demo.Process.Pid, syscall.SIGKILL) }()
		configServer := waitFor(t, out, done, regexp.MustCompile(`configserver\s+(http://\S+)`), 5*time.Minute)
		resp, err := http.Get(configServer + "/greeting-config/default")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "greeting-config") {
			t.Errorf("the demo's configuration server: %d %s", resp.StatusCode, body)
		}
		// Ctrl-C in a terminal signals the foreground process group: make and the stack.
		_ = syscall.Kill(-demo.Process.Pid, syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("make demo still runs 30 s after Ctrl-C:\n%s", out)
		}
		if strings.Contains(out.String(), "panic") {
			t.Errorf("make demo:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(dir, ".data", "config-repo")); err != nil {
			t.Errorf("make demo made no demo repository in .data: %v", err)
		}
	})

	t.Run("make conformance TAGS=@spec-4.4", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		run := exec.CommandContext(ctx, "make", "conformance", "TAGS=@spec-4.4")
		run.Dir, run.Env = dir, env
		out, err := run.CombinedOutput()
		if err != nil {
			t.Fatalf("make conformance TAGS=@spec-4.4: %v\n%s", err, out)
		}
		if !regexp.MustCompile(`\d+ passed, 0 failed, 0 blocked`).Match(out) {
			t.Errorf("not every selected scenario passed:\n%s", out)
		}
		for _, f := range []string{"index.html", "conformance-report.yaml", "junit.xml"} {
			if _, err := os.Stat(filepath.Join(dir, "reports", f)); err != nil {
				t.Errorf("make conformance wrote no reports/%s", f)
			}
		}
	})
}

// waitFor waits until out holds a match of re, and returns its first group.
func waitFor(t *testing.T, out *syncbuf.Buffer, done <-chan error, re *regexp.Regexp, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "Press Ctrl-C") {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("ended (%v) before it served:\n%s", err, out)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving after %s:\n%s", limit, out)
		}
	}
}

// copyCheckout copies the files git sees in the checkout (tracked, and untracked but not ignored) into a
// temporary folder: a clean clone of the working tree.
func copyCheckout(t *testing.T) string {
	t.Helper()
	list := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from := filepath.Join(root, name)
		fi, err := os.Lstat(from)
		if os.IsNotExist(err) {
			continue // deleted, not yet staged
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			link, _ := os.Readlink(from)
			if err := os.Symlink(link, to); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
