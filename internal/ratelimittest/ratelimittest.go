// Package ratelimittest runs envoyproxy/ratelimit, the rate limit service
// Envoy Gateway deploys, for tests: the binary scripts/deps.sh builds from
// its Go module, on a Redis the test gives, on free loopback ports, reading
// its configuration from a folder (its FILE mode, as RUNTIME_* settings
// name it). A test that needs it fails (never skips) when it is not built
// or was built at another version than examples/envoy-ratelimit/service.version
// names, so that missing coverage cannot go unnoticed; under go test -short
// (the fast tier) it is skipped, as package needs says.
package ratelimittest

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/testproc"
)

// Service is one envoyproxy/ratelimit process owned by a test: Addr is its
// gRPC address; Stop (a crash) and Restart (on the same gRPC port) are
// testproc's.
type Service struct {
	*testproc.Server
	// ConfigDir is the folder it reads its configuration from:
	// RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/config. It holds markFile.
	ConfigDir string
	mark      string // the domain of markFile, which only this service loads
	// Its HTTP ports, picked again at each start (Command).
	http  string // /healthcheck
	debug string // /rlconfig
}

// markFile, in the configuration folder, gives the service a domain of its
// own, which ready looks for in /rlconfig.
const markFile = "ratelimittest.yaml"

// pickPort is freeport's, replaced by the test of a port taken first.
var pickPort = func(tb testing.TB) int { return freeport.Get(tb) }

// Binary is the built service and the version it was built at; it fails
// the test with what to run when either is missing or stale.
func Binary(tb testing.TB) string {
	tb.Helper()
	needs.Program(tb, "envoyproxy/ratelimit (make deps builds it)")
	cache := os.Getenv("FORTUNE_TCK_CACHE")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache", "fortune-tck")
	}
	bin := filepath.Join(cache, "ratelimit", "bin", "service_cmd")
	_, self, _, _ := runtime.Caller(0)
	want, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "examples", "envoy-ratelimit", "service.version"))
	if err != nil {
		tb.Fatalf("reading the pinned envoyproxy/ratelimit version: %v", err)
	}
	got, err := os.ReadFile(bin + ".version")
	if _, serr := os.Stat(bin); serr != nil || err != nil || strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
		tb.Fatalf("envoyproxy/ratelimit (%s) is not built in %s, or was built at another version; this test runs the real service. "+
			"Run make deps (scripts/deps.sh builds it from its Go module)", strings.TrimSpace(string(want)), bin)
	}
	return bin
}

// Start runs the service on the Redis at redisAddr (host:port), with a
// configuration folder that holds only its mark, and stops it when the test
// ends. env adds or overrides settings (NAME=value).
func Start(tb testing.TB, redisAddr string, env ...string) *Service {
	tb.Helper()
	bin := Binary(tb)
	root := tb.TempDir()
	s := &Service{ConfigDir: filepath.Join(root, "ratelimit", "config"), mark: "ratelimittest-" + rand.Text()}
	mark := fmt.Sprintf("domain: %s\ndescriptors:\n  - key: service\n    rate_limit: {unit: day, requests_per_unit: 1}\n", s.mark)
	if err := os.MkdirAll(s.ConfigDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.ConfigDir, markFile), []byte(mark), 0o644); err != nil {
		tb.Fatal(err)
	}
	s.Server = testproc.Start(tb, testproc.Spec{
		Name: "envoyproxy/ratelimit",
		Command: func(port int) *exec.Cmd {
			s.http = "127.0.0.1:" + strconv.Itoa(pickPort(tb))
			s.debug = "127.0.0.1:" + strconv.Itoa(pickPort(tb))
			httpHost, httpPort, _ := net.SplitHostPort(s.http)
			debugHost, debugPort, _ := net.SplitHostPort(s.debug)
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(),
				"RUNTIME_ROOT="+root, "RUNTIME_SUBDIRECTORY=ratelimit", "RUNTIME_WATCH_ROOT=false", "RUNTIME_IGNOREDOTFILES=true",
				"REDIS_SOCKET_TYPE=tcp", "REDIS_URL="+redisAddr, "REDIS_TYPE=SINGLE",
				"HOST="+httpHost, "PORT="+httpPort, "DEBUG_HOST="+debugHost, "DEBUG_PORT="+debugPort,
				"GRPC_HOST=127.0.0.1", "GRPC_PORT="+strconv.Itoa(port),
				"USE_STATSD=false", "DISABLE_STATS=true", "LOG_FORMAT=json", "LOG_LEVEL=info")
			cmd.Env = append(cmd.Env, env...)
			return cmd
		},
		Ready:   func(string, string) error { return s.ready() },
		Timeout: 20 * time.Second,
	})
	return s
}

// URL is the service's address in the form the gateway takes.
func (s *Service) URL() string { return "grpc://" + s.Addr() }

// ready is nil once the service answers its health check and its
// /rlconfig shows its mark. Its ports were free when picked, but another
// program can bind one first: the service then exits if it is its HTTP or
// gRPC port (testproc notices), but runs on without its debug port, and
// the other program answers /rlconfig (a 404 was seen). The service loads
// its configuration before it listens, so an answer without the mark is
// never its own: that is testproc.ErrTaken, and testproc starts it again
// on fresh ports.
func (s *Service) ready() error {
	if err := s.healthy(); err != nil {
		return err
	}
	resp, err := probe.Get("http://" + s.debug + "/rlconfig")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), s.mark) {
		return fmt.Errorf("%w: its debug port %s answered /rlconfig with %s %.200q, not its configuration",
			testproc.ErrTaken, s.debug, resp.Status, body)
	}
	return nil
}

// probe is ready's client: a program that took a port may accept and
// never answer.
var probe = &http.Client{Timeout: 2 * time.Second}

// healthy is nil once the service answers its health check.
func (s *Service) healthy() error {
	resp, err := probe.Get("http://" + s.http + "/healthcheck")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: %s", resp.Status)
	}
	return nil
}

// Config is the configuration in force, as the service's debug port
// shows it (/rlconfig): one line per limit, "<domain>.<key>_<value>...:
// unit=... requests_per_unit=...".
func (s *Service) Config(tb testing.TB) string {
	tb.Helper()
	resp, err := http.Get("http://" + s.debug + "/rlconfig")
	if err != nil {
		tb.Fatalf("reading the rate limit service's configuration: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(body)
}

// WaitConfig waits (at most 15 s) until the configuration in force holds
// every one of lines; the service reloads its folder on its own time.
func (s *Service) WaitConfig(tb testing.TB, lines ...string) {
	tb.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		cfg := s.Config(tb)
		missing := ""
		for _, l := range lines {
			if !strings.Contains(cfg, l) {
				missing = l
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the rate limit service did not load %q within 15s; in force:\n%s", missing, cfg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
