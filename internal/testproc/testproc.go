// Package testproc is what redistest and pgtest share: a server process that
// a test owns on a free loopback port, kills as a crash would, and starts
// again on the same port, so that a test can verify that a client recovers.
package testproc

import (
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// Spec says how to run one kind of server and how to tell that it serves.
type Spec struct {
	Name string // the program, in failures
	// Command is a new command for each start, on port; testproc collects
	// its output.
	Command func(port int) *exec.Cmd
	// Ready is nil once the server at addr serves; output is its output
	// so far.
	Ready   func(addr, output string) error
	Timeout time.Duration // for Ready
	// Killed, optional, removes what a killed server leaves behind and
	// would refuse its next start (PostgreSQL's pid file).
	Killed func()
}

// Server is one server process owned by a test.
type Server struct {
	tb   testing.TB
	spec Spec
	port int
	mu   sync.Mutex
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
}

// Start runs the server on a free loopback port and stops it when the test
// ends.
func Start(tb testing.TB, spec Spec) *Server {
	tb.Helper()
	s := &Server{tb: tb, spec: spec, port: freeport.Get(tb)}
	s.start()
	tb.Cleanup(s.Stop)
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// PID is the running server's process id (0 after Stop), for a
// benchmark that reads the CPU time it used.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Stop kills the server (as a crash would) and waits for it to exit.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kill()
}

// Restart starts the server again on the same port, after Stop.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	s.start()
}

func (s *Server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
	if s.spec.Killed != nil {
		s.spec.Killed()
	}
}

func (s *Server) start() {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &syncbuf.Buffer{}
	s.cmd = s.spec.Command(s.port)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("starting %s: %v", s.spec.Name, err)
	}
	if err := s.waitReady(); err != nil {
		s.kill()
		s.tb.Fatalf("%s on %s did not start: %v\n%s", s.spec.Name, s.Addr(), err, s.out)
	}
}

// waitReady polls Ready until it is nil, the time is up or the server
// exited (a taken port, a bad cluster).
func (s *Server) waitReady() error {
	deadline := time.Now().Add(s.spec.Timeout)
	for {
		err := s.spec.Ready(s.Addr(), s.out.String())
		if err == nil || time.Now().After(deadline) || s.cmd.Process.Signal(syscall.Signal(0)) != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
