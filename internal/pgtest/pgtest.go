// Package pgtest runs a real PostgreSQL server for tests: a fresh cluster in
// a temporary directory, on a free loopback port. A test that needs it fails
// (never skips) when PostgreSQL is not installed, so missing coverage cannot
// go unnoticed; under go test -short (the fast tier) it is skipped, as package
// needs says. PostgreSQL refuses to run as root: as root, the server runs
// as the "postgres" system user (created by Debian's package).
package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/testproc"
)

// Server is one PostgreSQL server owned by a test: Addr, Stop (a crash) and
// Restart (on the same data and port) are testproc's.
type Server struct{ *testproc.Server }

// cluster is a cluster's data directory and who runs its programs.
type cluster struct {
	bin, dir string
	as       []string // the command prefix that drops root
}

// Start creates a cluster and runs its server until the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	needs.Program(tb, "PostgreSQL (postgres)")
	bin := binDir()
	if bin == "" {
		tb.Fatal("PostgreSQL is not installed; this test runs a real PostgreSQL server. " +
			"Install it (Debian: apt-get install postgresql, or run scripts/deps.sh as root)")
	}
	c := &cluster{bin: bin}
	root, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(root) })
	c.dir = filepath.Join(root, "data")
	if os.Geteuid() == 0 {
		if c.as, err = dropRoot(root); err != nil {
			tb.Fatal(err)
		}
	}
	out, err := c.command(filepath.Join(bin, "initdb"), "-D", c.dir, "-U", "postgres", "--auth=trust",
		"--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput()
	if err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	return &Server{testproc.Start(tb, testproc.Spec{
		Name: "postgres",
		Command: func(port int) *exec.Cmd {
			return c.command(filepath.Join(c.bin, "postgres"), "-D", c.dir, "-p", strconv.Itoa(port),
				"-h", "127.0.0.1", "-k", c.dir, "-c", "fsync=off", "-c", "max_connections=200")
		},
		Ready:   ready,
		Timeout: 30 * time.Second,
		Killed:  func() { _ = os.Remove(filepath.Join(c.dir, "postmaster.pid")) },
	})}
}

// dropRoot gives root (the cluster's parent directory) to the "postgres"
// system user, and returns the command prefix that runs a program as it:
// PostgreSQL refuses to run as root.
func dropRoot(root string) ([]string, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("running as root, PostgreSQL needs the unprivileged system user \"postgres\" " +
			"(created by Debian's postgresql package: apt-get install postgresql)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(root, uid, gid); err != nil {
		return nil, err
	}
	if err := os.Chmod(root, 0o700); err != nil {
		return nil, err
	}
	return []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", "--"}, nil
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

func (c *cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, c.as...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// URL is a connection URL of the database "postgres".
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", s.Addr())
}

func ready(_, output string) error {
	if !strings.Contains(output, "ready to accept connections") {
		return errors.New("not ready to accept connections")
	}
	return nil
}
