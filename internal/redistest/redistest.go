// Package redistest runs a real redis-server for tests, on a free loopback
// port, with persistence off. A test that needs Redis fails (never skips) when
// redis-server is not installed, so missing coverage cannot go unnoticed.
package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
)

const startTimeout = 10 * time.Second

// Server is one redis-server process owned by a test.
type Server struct {
	tb   testing.TB
	port int
	mu   sync.Mutex
	cmd  *exec.Cmd
	out  *bytes.Buffer
}

// Start runs redis-server on a free loopback port and stops it when the test
// ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Fatal("redis-server is not installed; this test runs a real Redis. " +
			"Install it (Debian: apt-get install redis-server, or run scripts/deps.sh as root)")
	}
	s := &Server{tb: tb, port: freeport.Get(tb)}
	s.start()
	tb.Cleanup(s.Stop)
	return s
}

// URL is the server's address in the form the bus accepts.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

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
}

// Restart starts the server again on the same port, after Stop.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	s.start()
}

func (s *Server) start() {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &bytes.Buffer{}
	s.cmd = exec.Command("redis-server",
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.tb.TempDir())
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("starting redis-server: %v", err)
	}
	if err := waitReady(s.Addr()); err != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
		s.tb.Fatalf("redis-server on %s did not start: %v\n%s", s.Addr(), err, s.out)
	}
}

// waitReady pings until the server answers PONG.
func waitReady(addr string) error {
	deadline := time.Now().Add(startTimeout)
	var err error
	for time.Now().Before(deadline) {
		if err = ping(addr); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

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
