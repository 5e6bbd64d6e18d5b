package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
)

// startTimeout bounds how long a service may take to answer after start.
const startTimeout = 20 * time.Second

// stack holds the processes one run started, so that all are stopped at
// the end, whatever happened.
type stack struct {
	dir   string // temporary files: binaries, manifests, logs
	ref   string // the reference binary
	procs []*proc
	// profile starts the reference services with --pprof (-profile).
	profile bool
}

// proc is a started service.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string // its stdout and stderr
	done chan struct{}
	// pprof is the address of its profiles, with -profile.
	pprof string
}

// start runs a program; its output goes to a log file in the stack's
// directory, shown when it does not start.
func (s *stack) start(name, program string, args ...string) (*proc, error) {
	return s.startEnv(name, nil, program, args...)
}

// startEnv is start with settings added to the environment (NAME=value):
// envoyproxy/ratelimit takes its configuration only from there.
func (s *stack) startEnv(name string, env []string, program string, args ...string) (*proc, error) {
	logPath := filepath.Join(s.dir, slug(name)+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(program, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s could not start: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	s.procs = append(s.procs, p)
	return p, nil
}

// stop ends every process this run started, by its own id.
func (s *stack) stop() {
	for _, p := range s.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range s.procs {
		select {
		case <-p.done:
		case <-time.After(3 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	}
}

// waitHTTP waits until url answers HTTP (any status).
func (p *proc) waitHTTP(url string) error {
	client := &http.Client{Timeout: time.Second}
	return p.poll("answering", "answer at "+url, func() error {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
}

// waitTCP is waitHTTP for a server that does not speak HTTP (Redis).
func (p *proc) waitTCP(addr string) error {
	return p.poll("listening", "listen on "+addr, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err
	})
}

// poll tries until try succeeds, the process exits or startTimeout
// passes; the error names what it was waiting for (before, ready) and
// quotes the end of the log.
func (p *proc) poll(before, ready string, try func() error) error {
	deadline := time.Now().Add(startTimeout)
	for {
		err := try()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before %s (%s): %s", p.name, before, p.cmd.ProcessState, p.tail())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not %s within %s: %v; its log: %s", p.name, ready, startTimeout, err, p.tail())
		}
	}
}

// tail is the last lines of the process's log.
func (p *proc) tail() string {
	b, err := os.ReadFile(p.log)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return "(no output)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, " | ")
}

// service starts the reference binary's service with --port 0 and waits
// for its ready file; it returns its URL and process.
func (s *stack) service(name string, args ...string) (string, *proc, error) {
	ready := filepath.Join(s.dir, slug(name)+".url")
	args = append([]string{"serve"}, append(args, "--ready-file", ready, "--log-level", "warn")...)
	pprof := ""
	if s.profile {
		port, err := freeport.Port()
		if err != nil {
			return "", nil, err
		}
		pprof = "127.0.0.1:" + strconv.Itoa(port)
		args = append(args, "--pprof", pprof)
	}
	p, err := s.start(name, s.ref, args...)
	if err != nil {
		return "", nil, err
	}
	p.pprof = pprof
	var url string
	err = p.poll("writing its ready file", "write its ready file "+ready, func() error {
		b, err := os.ReadFile(ready)
		if err == nil && len(b) == 0 {
			err = errors.New("empty")
		}
		url = strings.TrimSpace(string(b))
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return url, p, p.waitHTTP(url + "/")
}

// fixedBody starts this program again as the fixed-body baseline server.
func (s *stack) fixedBody(name, bodyFile string) (string, error) {
	args := []string{}
	if bodyFile != "" {
		args = append(args, "-body", bodyFile)
	}
	url, _, err := s.self(name, fixedBodyCommand, args...)
	return url, err
}

// self starts this program again as a server (command args -addr ADDR) on
// a free port and returns its URL and process once it answers.
func (s *stack) self(name, command string, args ...string) (string, *proc, error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	port, err := freeport.Port()
	if err != nil {
		return "", nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := s.start(name, self, append([]string{command, "-addr", addr}, args...)...)
	if err != nil {
		return "", nil, err
	}
	url := "http://" + addr
	return url, p, p.waitHTTP(url + "/")
}

// build compiles the reference binary into the stack's directory.
func (s *stack) build(ctx context.Context) error {
	s.ref = filepath.Join(s.dir, "reference")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", s.ref, "./cmd/reference")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the reference (run from the project checkout): %w\n%s", err, out)
	}
	return nil
}

var errSkipped = errors.New("not measured")
