// Package boot starts the reference implementation as a target: it builds cmd/reference from this checkout,
// starts each service as a separate process on a free port, and stops them all again. The harness talks to the
// processes over the wire only, exactly as it talks to any other implementation.
package boot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fortune-tck/fortune-tck/harness/target"
)

// module is the module path that marks a checkout of this project.
const module = "github.com/fortune-tck/fortune-tck"

// Options tune how the reference is booted.
type Options struct {
	// Binary is a prebuilt reference binary; empty means build cmd/reference from the checkout.
	Binary string
	// LogDir receives one log file per service, kept after the stack stops.
	LogDir string
	// Progress receives one line per step; nil means silence.
	Progress io.Writer
}

// Stack is a running reference target.
type Stack struct {
	Target *target.Target
	dir    string
	procs  []*process
	opts   Options
}

type process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
}

// Reference boots every service of the reference and returns the target that describes it. On error, whatever
// was started is stopped again.
func Reference(ctx context.Context, opts Options) (st *Stack, err error) {
	dir, err := os.MkdirTemp("", "fortune-tck-reference-")
	if err != nil {
		return nil, err
	}
	st = &Stack{dir: dir, opts: opts, Target: &target.Target{
		Implementation: target.Implementation{Organization: "fortune-tck", Project: "fortune-tck reference",
			URL: "https://" + module, Version: version(), Contact: []string{"fortune-tck maintainers"}},
		Capabilities: target.KnownNames(),
	}}
	defer func() {
		if err != nil {
			st.Stop()
			st = nil
		}
	}()
	if opts.LogDir == "" {
		opts.LogDir = filepath.Join(dir, "logs")
		st.opts.LogDir = opts.LogDir
	}
	if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
		return st, err
	}
	bin := opts.Binary
	if bin == "" {
		if bin, err = st.build(ctx); err != nil {
			return st, err
		}
	}
	return st, st.startConfigServer(ctx, bin)
}

func (st *Stack) progress(format string, args ...any) {
	if st.opts.Progress != nil {
		fmt.Fprintf(st.opts.Progress, format+"\n", args...)
	}
}

// build compiles cmd/reference of the checkout the harness runs in.
func (st *Stack) build(ctx context.Context) (string, error) {
	root, err := Checkout()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(st.dir, "reference")
	st.progress("building the reference from %s", root)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/reference")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building cmd/reference: %w\n%s", err, out)
	}
	return bin, nil
}

// Checkout finds the root of the fortune-tck checkout that contains the working directory.
func Checkout() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			line, _, _ := strings.Cut(string(data), "\n")
			if strings.TrimSpace(line) == "module "+module {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no --target given, and the working directory is not inside a fortune-tck " +
				"checkout to build the reference from: run from the checkout, set TCK_REFERENCE_BIN to a built " +
				"reference binary, or pass --target FILE")
		}
		dir = parent
	}
}

func (st *Stack) startConfigServer(ctx context.Context, bin string) error {
	repo := filepath.Join(st.dir, "config-repo.git")
	if err := initRepository(repo); err != nil {
		return fmt.Errorf("creating the configuration repository: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	uri := "file://" + repo
	if err := st.start(ctx, "configserver", bin, "serve", "configserver", "--port", strconv.Itoa(port),
		"--uri", uri, "--basedir", filepath.Join(st.dir, "configserver-cache")); err != nil {
		return err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	st.Target.Services.ConfigServer = &target.ConfigServer{URL: base, Repository: target.Repository{URI: uri}}
	return st.waitReady(ctx, "configserver", base+"/health")
}

// start runs one service in a process group of its own, so that Stop can end it and anything it started.
func (st *Stack) start(ctx context.Context, name, bin string, args ...string) error {
	logPath := filepath.Join(st.opts.LogDir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	st.procs = append(st.procs, p)
	st.progress("started %s (pid %d), log %s", name, cmd.Process.Pid, logPath)
	return nil
}

// waitReady polls a service until it answers, fails early when its process exits, and gives up after 30s.
func (st *Stack) waitReady(ctx context.Context, name, url string) error {
	p := st.procs[len(st.procs)-1]
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for start := time.Now(); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited at start:\n%s", name, tail(p.log.Name(), 20))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				st.progress("%s ready at %s in %s", name, strings.TrimSuffix(url, "/health"), time.Since(start).Round(time.Millisecond))
				return nil
			}
		}
	}
	return fmt.Errorf("%s did not answer %s within 30s; its log:\n%s", name, url, tail(p.log.Name(), 20))
}

// Stop ends every service (SIGTERM, then SIGKILL after 5s) and removes the temporary directory. Logs stay in
// LogDir when one was given. Stop may be called more than once.
func (st *Stack) Stop() {
	for _, p := range st.procs {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
	for _, p := range st.procs {
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
		p.log.Close()
	}
	st.procs = nil
	if st.dir != "" {
		_ = os.RemoveAll(st.dir)
		st.dir = ""
	}
}

// PIDs returns the process ids of the running services, for tests that check nothing is left behind.
func (st *Stack) PIDs() []int {
	var pids []int
	for _, p := range st.procs {
		pids = append(pids, p.cmd.Process.Pid)
	}
	return pids
}

// Dir is the temporary directory of the stack, removed by Stop.
func (st *Stack) Dir() string { return st.dir }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return "  " + strings.Join(lines, "\n  ")
}

// version names the checkout the reference was built from, when git can tell.
func version() string {
	root, err := Checkout()
	if err != nil {
		return "dev"
	}
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "dev"
	}
	return strings.TrimSpace(string(out))
}
