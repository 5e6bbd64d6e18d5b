// Package pgtest runs a real PostgreSQL server for tests: a fresh cluster in
// a temporary directory, on a free loopback port. A test that needs it fails
// (never skips) when PostgreSQL is not installed, so missing coverage cannot
// go unnoticed. PostgreSQL refuses to run as root: as root, the server runs
// as the "postgres" system user (created by Debian's package).
package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

const startTimeout = 30 * time.Second

// Server is one PostgreSQL server owned by a test.
type Server struct {
	tb   testing.TB
	bin  string
	dir  string // the cluster's data directory
	port int
	mu   sync.Mutex
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	as   []string // the command prefix that drops root
}

// Start creates a cluster and runs its server until the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := binDir()
	if bin == "" {
		tb.Fatal("PostgreSQL is not installed; this test runs a real PostgreSQL server. " +
			"Install it (Debian: apt-get install postgresql, or run scripts/deps.sh as root)")
	}
	s := &Server{tb: tb, bin: bin, port: freeport.Get(tb)}
	root, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(root) })
	s.dir = filepath.Join(root, "data")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Fatal("running as root, PostgreSQL needs the unprivileged system user \"postgres\" " +
				"(created by Debian's postgresql package: apt-get install postgresql)")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(root, uid, gid); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chmod(root, 0o700); err != nil {
			tb.Fatal(err)
		}
		s.as = []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", "--"}
	}
	out, err := s.command(filepath.Join(bin, "initdb"), "-D", s.dir, "-U", "postgres", "--auth=trust",
		"--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput()
	if err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	s.start()
	tb.Cleanup(s.Stop)
	return s
}

// binDir finds the newest installed PostgreSQL's programs.
func binDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, s.as...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// URL is a connection URL of the database "postgres".
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", s.Addr())
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Stop kills the server (as a crash would) and waits for it to exit.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
	_ = os.Remove(filepath.Join(s.dir, "postmaster.pid"))
}

// Restart starts the server again on the same data and port, after Stop.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	s.start()
}

func (s *Server) start() {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &syncbuf.Buffer{}
	s.cmd = s.command(filepath.Join(s.bin, "postgres"), "-D", s.dir, "-p", strconv.Itoa(s.port),
		"-h", "127.0.0.1", "-k", s.dir, "-c", "fsync=off", "-c", "max_connections=200")
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("starting postgres: %v", err)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		if ready(s.out) {
			return
		}
		if time.Now().After(deadline) || exited(s.cmd) {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
			s.cmd = nil
			s.tb.Fatalf("postgres on %s did not start:\n%s", s.Addr(), s.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func ready(out *syncbuf.Buffer) bool {
	return strings.Contains(out.String(), "ready to accept connections")
}

// exited reports whether the server process is gone (e.g. a taken port).
func exited(cmd *exec.Cmd) bool {
	return cmd.Process.Signal(syscall.Signal(0)) != nil
}
