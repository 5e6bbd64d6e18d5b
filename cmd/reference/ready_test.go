package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readyURL waits for a --ready-file and returns the URL in it.
func readyURL(t *testing.T, r *running, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if !strings.HasSuffix(string(b), "\n") {
				t.Fatalf("ready file %q: not one whole line (written in place?)", b)
			}
			return strings.TrimSuffix(string(b), "\n")
		}
		select {
		case code := <-r.done:
			r.done <- code
			t.Fatalf("exited with %d before writing the ready file:\n%s", code, r.stderr)
		default:
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no ready file after 10s:\n%s", r.stderr)
	return ""
}

// With --port 0 a service gets a port from the kernel and tells it: in a
// log line and, with --ready-file, in a file written once it listens. The
// harness starts the fortune service and the configuration server so.
func TestServePortZeroReportsTheBoundPort(t *testing.T) {
	bare := bareRepo(t, map[string]string{"app.yml": "k: v\n"})
	cases := []struct {
		name  string
		args  []string
		probe string
		want  int
	}{
		{"fortune", []string{"--auth-url", "http://127.0.0.1:1"}, "/", http.StatusUnauthorized},
		{"configserver", []string{"--uri", "file://" + bare, "--basedir", t.TempDir()}, "/health", http.StatusOK},
		{"quotes", nil, "/api/random", http.StatusOK},
		{"authserver", []string{"--url", "http://127.0.0.1:1"}, "/healthz", http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ready")
			r := start(t, nil, append([]string{"serve", tc.name, "--port", "0", "--ready-file", file}, tc.args...)...)
			hook := r.addr(t)
			got := readyURL(t, r, file)
			if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(got) || got != hook {
				t.Fatalf("ready file %q, the service listens at %s", got, hook)
			}
			if code, body := httpGet(t, got+tc.probe); code != tc.want {
				t.Fatalf("GET %s: %d %s", got+tc.probe, code, body)
			}
			addr := strings.TrimPrefix(got, "http://")
			if !regexp.MustCompile(`msg=listening .*addr=` + regexp.QuoteMeta(addr) + `\b`).MatchString(r.stderr.String()) {
				t.Fatalf("no listening line with addr=%s:\n%s", addr, r.stderr)
			}
			if entries, _ := os.ReadDir(filepath.Dir(file)); len(entries) != 1 {
				t.Fatalf("temporary files left beside the ready file: %v", entries)
			}
		})
	}
}

// A wildcard --host is written as loopback: the file names a URL to call.
func TestReadyFileOfAWildcardHost(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ready")
	r := start(t, nil, "serve", "quotes", "--port", "0", "--host", "0.0.0.0", "--ready-file", file)
	r.addr(t)
	got := readyURL(t, r, file)
	if !strings.HasPrefix(got, "http://127.0.0.1:") {
		t.Fatalf("ready file %q", got)
	}
	if code, _ := httpGet(t, got+"/api/random"); code != http.StatusOK {
		t.Fatalf("GET %s: %d", got, code)
	}
}

// A ready file that cannot be written stops the service with an error.
func TestReadyFileNotWritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "missing-dir", "ready")
	code, _, stderr := runCLI("serve", "quotes", "--port", "0", "--ready-file", file)
	if code != exitError || !strings.Contains(stderr, "ready file") || !strings.Contains(stderr, file) {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// A ready file or target file an earlier run left behind is removed before
// anything can fail, and a service's own once it stops, so that whoever
// waits for one never reads an old address.
func TestAStaleReadyFileIsNeverRead(t *testing.T) {
	stale := func() string {
		file := filepath.Join(t.TempDir(), "ready")
		if err := os.WriteFile(file, []byte("http://127.0.0.1:1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	gone := func(what, file string, r *running) {
		t.Helper()
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Fatalf("%s: the file is still there (%v):\n%s", what, err, r.stderr)
		}
	}
	failed := func(r *running) {
		t.Helper()
		code := <-r.done
		r.done <- code
		if code == 0 {
			t.Fatalf("exited 0:\n%s", r.stderr)
		}
	}

	file := stale()
	r := start(t, nil, "serve", "configserver", "--port", "0", "--ready-file", file, "--uri", filepath.Join(t.TempDir(), "none"))
	failed(r)
	gone("serve that failed to start", file, r)

	file = stale()
	r = start(t, nil, "up", "--processes", "--data", "/dev/null/stack", "--target-file", file)
	failed(r)
	gone("up that failed to start", file, r)

	file = stale()
	r = start(t, nil, "serve", "fortune", "--port", "0", "--ready-file", file, "--auth-url", "http://127.0.0.1:1")
	hook := r.addr(t)
	if got := readyURL(t, r, file); got != hook {
		t.Fatalf("ready file %q, the service listens at %s", got, hook)
	}
	r.stop(t)
	gone("serve once stopped", file, r)
}
