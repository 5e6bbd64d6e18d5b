// Package launch runs programs as child processes, with their output kept in a log file and in memory, stopped
// with SIGTERM and, if need be, SIGKILL. The harness starts `reference up` and the instances a scenario starts
// through a target's start command this way, each in a process group of its own; `reference up` starts each
// service of its stack in its own group (Child), so that stopping that one group stops the whole stack.
package launch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is one running program.
type Process struct {
	Name  string
	cmd   *exec.Cmd
	group bool // the process leads a group of its own: Stop signals the group
	log   *os.File
	out   *buffer
	done  chan struct{}
	err   error
}

// Start runs a program with extra environment variables, in a process group of its own, so that Stop reaches
// whatever the program starts; its output goes to logPath and to memory.
func Start(name, logPath string, env []string, program string, args ...string) (*Process, error) {
	return start(name, logPath, env, true, program, args...)
}

// Child runs a program as Start does, but in the caller's process group: a signal to that group (the harness
// stopping `reference up`) reaches the child at once, and Stop signals the child alone.
func Child(name, logPath string, env []string, program string, args ...string) (*Process, error) {
	return start(name, logPath, env, false, program, args...)
}

func start(name, logPath string, env []string, group bool, program string, args ...string) (*Process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	p := &Process{Name: name, log: log, out: &buffer{}, done: make(chan struct{}), group: group}
	p.cmd = exec.Command(program, args...)
	p.cmd.Env = append(os.Environ(), env...)
	w := io.MultiWriter(log, p.out)
	p.cmd.Stdout, p.cmd.Stderr = w, w
	// Pdeathsig ends the program if its parent is killed.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	return p, nil
}

// Shell runs a shell command line, for start commands written in a target file.
func Shell(name, logPath string, env []string, command string) (*Process, error) {
	return Start(name, logPath, env, "/bin/sh", "-c", command)
}

// PID is the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// LogPath is where the output is kept.
func (p *Process) LogPath() string { return p.log.Name() }

// Output is everything the program has written so far.
func (p *Process) Output() string { return p.out.String() }

// Exited reports whether the program has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the group (to the process alone when it was started with Child), waits up to grace,
// then SIGKILL. It may be called more than once.
func (p *Process) Stop(grace time.Duration) {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.signal(syscall.SIGKILL)
		<-p.done
	}
	if p.group {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL) // what the program started and left behind
	}
	p.log.Close()
}

func (p *Process) signal(sig syscall.Signal) {
	if p.group {
		_ = syscall.Kill(-p.PID(), sig)
		return
	}
	_ = p.cmd.Process.Signal(sig)
}

// Done is closed when the program has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is how the program ended, once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// WaitHTTP polls url until any HTTP answer comes (a 401 is an answer: the program is up), the process exits,
// ctx ends or timeout passes.
func (p *Process) WaitHTTP(ctx context.Context, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	return p.wait(ctx, timeout, url, func() bool {
		resp, err := client.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
}

// WaitTCP polls addr until it accepts a connection.
func (p *Process) WaitTCP(ctx context.Context, addr string, timeout time.Duration) error {
	return p.wait(ctx, timeout, addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		c.Close()
		return true
	})
}

// WaitFile polls path until it holds one whole line (ending in a newline), such as the URL a service writes to
// its ready file once it listens on the port it got, and returns the line without the newline. A program that
// writes the file in place could be read half-written; the reference writes a temporary file and renames it.
func (p *Process) WaitFile(ctx context.Context, path string, timeout time.Duration) (string, error) {
	var line string
	err := p.wait(ctx, timeout, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		line = strings.TrimSpace(string(b))
		return line != ""
	})
	return line, err
}

// WaitOutput polls until the program's output holds line, the ready line of a start script.
func (p *Process) WaitOutput(ctx context.Context, line string, timeout time.Duration) error {
	return p.wait(ctx, timeout, fmt.Sprintf("its output (for %q)", line), func() bool {
		return strings.Contains(p.Output(), line)
	})
}

// WaitPath polls until path exists, for a file its program writes whole through a rename (a target file).
func (p *Process) WaitPath(ctx context.Context, path string, timeout time.Duration) error {
	return p.wait(ctx, timeout, path, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

func (p *Process) wait(ctx context.Context, timeout time.Duration, what string, ready func() bool) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited at start (%v); its output:\n%s", p.Name, p.err, p.Tail(20))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if ready() {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer at %s within %s; its output:\n%s", p.Name, what, timeout, p.Tail(20))
}

// Tail returns the last n lines of the output, indented.
func (p *Process) Tail(n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(p.Output()))
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	if len(lines) == 0 {
		return "  (no output)"
	}
	return "  " + strings.Join(lines, "\n  ")
}

// buffer is a bounded, concurrency-safe output buffer: it keeps the first 8 MiB, which start-up lines such as a
// generated password are always part of, and drops the rest.
type buffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

const bufferLimit = 8 << 20

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := bufferLimit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
