// Package rabbittest gives tests a real RabbitMQ broker: one private rabbitmq-server per test binary (package
// rabbitmq runs it in a temporary folder, on free loopback ports), started on first use and stopped by Main.
// RabbitMQ takes seconds to start (an Erlang node), so the tests of a binary share it; each test that needs a
// bus of its own takes a virtual host no other test uses (VHost), as Spring Cloud Bus's exchange name is fixed.
// Proxy puts a connection a test can cut between a client and the broker, to play a broker that goes away and
// comes back without the seconds of a restart.
//
// Without rabbitmq-server a test fails, naming the package to install; under go test -short it is skipped
// instead, unless the environment variable CI is set (CI never skips for want of a program).
package rabbittest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/rabbitmq"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

// vhosts is how many virtual hosts the broker has besides "/": more than the tests of any binary ask for.
const vhosts = 64

// startTimeout bounds a start: a few seconds on an idle machine, much more on a loaded one.
const startTimeout = 2 * time.Minute

// Broker is the test binary's rabbitmq-server.
type Broker struct {
	root   string // the folder of the binary's brokers
	node   rabbitmq.Node
	epmd   *exec.Cmd
	server *exec.Cmd
	out    *syncbuf.Buffer
	exited chan struct{}
	next   atomic.Int64 // virtual hosts handed out
}

var (
	mu     sync.Mutex
	shared *Broker
	failed error
)

// Start returns the test binary's broker, starting it on the first call; the next calls share it.
func Start(tb testing.TB) *Broker {
	tb.Helper()
	require(tb)
	mu.Lock()
	defer mu.Unlock()
	if shared == nil && failed == nil {
		shared, failed = start()
	}
	if failed != nil {
		tb.Fatal(failed)
	}
	return shared
}

// require stops a test that cannot have a broker: skipped under -short (needs.Program), otherwise a failure
// naming what to install.
func require(tb testing.TB) {
	tb.Helper()
	needs.Program(tb, "rabbitmq-server")
	if _, _, err := rabbitmq.Program(); err != nil {
		tb.Fatal(err.Error() + "; this test runs a real RabbitMQ")
	}
}

// Main runs the tests and then stops the broker, if one was started, and removes its folder: a package whose
// tests use the broker calls it from TestMain, os.Exit(rabbittest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		shared.stop()
		shared = nil
	}
	return code
}

// URL is the AMQP URL of the virtual host "/", which every test of the binary may use.
func (b *Broker) URL() string { return b.node.URL("/") }

// VHost is the AMQP URL of a virtual host of the test's own.
func (b *Broker) VHost(tb testing.TB) string {
	tb.Helper()
	n := b.next.Add(1)
	if n > vhosts {
		tb.Fatalf("the tests of this binary asked for more than %d virtual hosts: raise rabbittest.vhosts", vhosts)
	}
	return b.node.URL(vhostName(int(n)))
}

// Addr is the broker's AMQP listener, host:port.
func (b *Broker) Addr() string { return b.node.Addr() }

// Output is what the broker has written (warnings and errors only).
func (b *Broker) Output() string { return b.out.String() }

func vhostName(n int) string { return fmt.Sprintf("t%02d", n) }

// start runs epmd and the node on fresh ports, a few times if a port was taken in between.
func start() (*Broker, error) {
	removeStale()
	dir, err := os.MkdirTemp("", "rabbittest-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, err
	}
	var errs []error
	for range 3 {
		b, err := startIn(dir)
		if b != nil {
			b.root = dir
		}
		if err == nil {
			return b, nil
		}
		errs = append(errs, err)
		if !portTaken(err) {
			break
		}
	}
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("rabbitmq-server did not start: %w", errors.Join(errs...))
}

func startIn(dir string) (*Broker, error) {
	server, epmd, err := rabbitmq.Program()
	if err != nil {
		return nil, err
	}
	b := &Broker{out: &syncbuf.Buffer{}, exited: make(chan struct{})}
	b.node = rabbitmq.Node{Dir: filepath.Join(dir, "node-"+strconv.FormatInt(time.Now().UnixNano(), 36))}
	for _, p := range []*int{&b.node.Port, &b.node.DistPort, &b.node.EpmdPort} {
		if *p, err = freeport.Port(); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= vhosts; i++ {
		b.node.VHosts = append(b.node.VHosts, vhostName(i))
	}
	if err := b.node.Prepare(); err != nil {
		return nil, err
	}
	b.epmd = b.command(epmd, b.node.EpmdArgs()...)
	b.server = b.command(server)
	b.server.Env = append(os.Environ(), b.node.Env()...)
	if err := b.epmd.Start(); err != nil {
		return nil, err
	}
	if err := b.server.Start(); err != nil {
		b.kill()
		return nil, err
	}
	go func() { _ = b.server.Wait(); close(b.exited) }()
	if err := b.waitReady(); err != nil {
		b.kill()
		return nil, err
	}
	return b, nil
}

// command is a program of the broker: its output kept, killed with the test binary.
func (b *Broker) command(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(program, args...)
	cmd.Stdout, cmd.Stderr = b.out, b.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

func (b *Broker) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for {
		err := b.node.Ready()
		if err == nil {
			return nil
		}
		select {
		case <-b.exited:
			return fmt.Errorf("it exited at start (%v); its output:\n%s", b.server.ProcessState, tail(b.out.String()))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s (%v); its output:\n%s", startTimeout, err, tail(b.out.String()))
		}
	}
}

// stop kills the node and epmd and removes the folder.
func (b *Broker) stop() {
	b.kill()
	_ = os.RemoveAll(b.root)
}

// kill ends the node and epmd.
func (b *Broker) kill() {
	for _, cmd := range []*exec.Cmd{b.server, b.epmd} {
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	}
	if b.server != nil && b.server.Process != nil {
		<-b.exited
	}
	if b.epmd != nil && b.epmd.Process != nil {
		_ = b.epmd.Wait()
	}
}

// removeStale removes the folders of test binaries that ended without Main (killed, or a package without
// TestMain): their brokers died with them.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "rabbittest-*-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.Split(filepath.Base(d), "-")[1])
		if err == nil && pid != os.Getpid() && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			_ = os.RemoveAll(d)
		}
	}
}

// portTaken tells a start that failed because another program took one of its ports: worth another try.
func portTaken(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "eaddrinuse") || strings.Contains(s, "address already in use")
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}
