// Package redistest runs a real redis-server for tests, on a free loopback
// port, with persistence off. A test that needs Redis fails (never skips) when
// redis-server is not installed, so missing coverage cannot go unnoticed; under
// go test -short (the fast tier) it is skipped, as package needs says.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/testproc"
)

// Server is one redis-server process owned by a test: Addr, Stop (a crash)
// and Restart (on the same port) are testproc's.
type Server struct{ *testproc.Server }

// Start runs redis-server on a free loopback port and stops it when the test
// ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	needs.Program(tb, "redis-server")
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Fatal("redis-server is not installed; this test runs a real Redis. " +
			"Install it (Debian: apt-get install redis-server, or run scripts/deps.sh as root)")
	}
	return &Server{testproc.Start(tb, testproc.Spec{
		Name: "redis-server",
		Command: func(port int) *exec.Cmd {
			return exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", tb.TempDir())
		},
		Ready:   func(addr, _ string) error { return ping(addr) },
		Timeout: 10 * time.Second,
	})}
}

// URL is the server's address in the form the bus accepts.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// ping is nil when the server answers PONG.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("answer %q", line)
	}
	return nil
}
