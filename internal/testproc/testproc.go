// Package testproc is what redistest and pgtest share: a server process that
// a test owns on a free loopback port, kills as a crash would, and starts
// again on the same port, so that a test can verify that a client recovers.
package testproc

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// Spec says how to run one kind of server and how to tell that it serves.
type Spec struct {
	Name string // the program, in failures
	// Command is a new command for each start, on port; testproc collects
	// its output. Other ports the server needs are best picked here, so
	// that a start again after a taken port gets fresh ones too.
	Command func(port int) *exec.Cmd
	// Ready is nil once the server at addr serves; output is its output
	// so far. An error wrapping ErrTaken ends the wait at once.
	Ready   func(addr, output string) error
	Timeout time.Duration // for Ready
	// Killed, optional, removes what a killed server leaves behind and
	// would refuse its next start (PostgreSQL's pid file).
	Killed func()
}

// ErrTaken, wrapped in Ready's error, says that another program answers on
// one of the server's ports: it took the port between freeport's choice
// and the server's bind, so waiting longer would not help.
var ErrTaken = errors.New("port taken by another program")

// errExited is a server that exited before it was ready, as servers do
// when their port is taken.
var errExited = errors.New("exited")

// attempts is how many times Start runs a server that exited or found its
// port taken, on fresh ports each time, before it fails the test.
const attempts = 3

// Server is one server process owned by a test.
type Server struct {
	tb      testing.TB
	spec    Spec
	port    int
	mu      sync.Mutex
	cmd     *exec.Cmd
	out     *syncbuf.Buffer
	exited  chan struct{} // closed when cmd has exited and waitErr is set
	waitErr error
}

// Start runs the server on a free loopback port and stops it when the test
// ends. A free port is only free until someone binds it: when the server
// exits or Ready reports ErrTaken, Start stops it and runs it again on a
// fresh port (Command picks its other ones again), a few times.
func Start(tb testing.TB, spec Spec) *Server {
	tb.Helper()
	needs.Program(tb, spec.Name)
	s := &Server{tb: tb, spec: spec}
	tb.Cleanup(s.Stop)
	var failed []string
	for range attempts {
		s.port = freeport.Get(tb)
		err := s.start()
		if err == nil {
			return s
		}
		failed = append(failed, fmt.Sprintf("on %s: %v", s.Addr(), err))
		if !errors.Is(err, ErrTaken) && !errors.Is(err, errExited) {
			break
		}
	}
	tb.Fatalf("%s did not start (%d attempts, fresh ports each time):\n%s\nits last output:\n%s",
		spec.Name, len(failed), strings.Join(failed, "\n"), s.out)
	return nil
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
	if err := s.start(); err != nil {
		s.tb.Fatalf("%s on %s did not start again: %v\n%s", s.spec.Name, s.Addr(), err, s.out)
	}
}

func (s *Server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
	if s.spec.Killed != nil {
		s.spec.Killed()
	}
}

// start runs the server and waits until it is ready; when it is not, it
// kills it and says why.
func (s *Server) start() error {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &syncbuf.Buffer{}
	s.cmd = s.spec.Command(s.port)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
		s.tb.Fatalf("starting %s: %v", s.spec.Name, err)
	}
	// Waiting in the background is what tells an exited server: until
	// Wait, it is a zombie, which still takes signals.
	cmd, exited := s.cmd, make(chan struct{})
	s.exited = exited
	go func() { s.waitErr = cmd.Wait(); close(exited) }()
	if err := s.waitReady(); err != nil {
		s.kill()
		return err
	}
	return nil
}

// waitReady polls Ready until it is nil and the server still runs, the
// time is up, Ready finds the port taken, or the server exited (a taken
// port, a bad cluster).
func (s *Server) waitReady() error {
	deadline := time.Now().Add(s.spec.Timeout)
	for {
		err := s.spec.Ready(s.Addr(), s.out.String())
		select {
		case <-s.exited:
			return fmt.Errorf("%w (%v) before it was ready (last readiness check: %v)", errExited, s.waitErr, err)
		default:
		}
		if err == nil || errors.Is(err, ErrTaken) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
