// Package boot starts the reference implementation as a target: it builds cmd/reference from this checkout (or
// takes a prebuilt binary), runs `reference up --processes --target-file F`, waits for F and reads it with the
// ordinary target loader, and at the end stops the process group of `up`, which holds every service. The
// reference owns its wiring (which services, their flags, ports, credentials, the order of start); the harness
// knows none of it, and talks to the services over the wire only, exactly as it talks to any other
// implementation.
package boot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/target"
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
	up     *launch.Process
	opts   Options
}

// startTimeout bounds the wait for `reference up` to write its target file: it starts seven processes, each
// waited for in turn.
const startTimeout = 3 * time.Minute

// Reference boots every service of the reference and returns the target that describes it. On error, whatever
// was started is stopped again.
func Reference(ctx context.Context, opts Options) (st *Stack, err error) {
	dir, err := os.MkdirTemp("", "fortune-tck-reference-")
	if err != nil {
		return nil, err
	}
	st = &Stack{dir: dir, opts: opts}
	defer func() {
		if err != nil {
			st.Stop()
			st = nil
		}
	}()
	if st.opts.LogDir == "" {
		st.opts.LogDir = filepath.Join(dir, "logs")
	}
	if err := os.MkdirAll(st.opts.LogDir, 0o755); err != nil {
		return st, err
	}
	bin := opts.Binary
	if bin == "" {
		if bin, err = st.build(ctx); err != nil {
			return st, err
		}
	}
	return st, st.startUp(ctx, bin)
}

// startUp runs `reference up --processes` and loads the target file it writes once every service answers.
func (st *Stack) startUp(ctx context.Context, bin string) error {
	file := filepath.Join(st.dir, "target.yaml")
	p, err := launch.Start("reference", filepath.Join(st.opts.LogDir, "reference.log"), nil, bin, "up", "--processes",
		"--data", filepath.Join(st.dir, "data"), "--log-dir", st.opts.LogDir, "--target-file", file)
	if err != nil {
		return err
	}
	st.up = p
	st.progress("started reference up (pid %d), log %s", p.PID(), p.LogPath())
	if err := p.WaitPath(ctx, file, startTimeout); err != nil {
		return err
	}
	if st.Target, err = target.Load(file); err != nil {
		return fmt.Errorf("the target file of reference up: %w", err)
	}
	// The binary knows its commit only when its build recorded one; the checkout it was built from always does.
	if v := version(); v != "" {
		st.Target.Implementation.Version = v
	}
	st.progress("reference ready: %s, service logs in %s", file, st.opts.LogDir)
	return nil
}

func (st *Stack) progress(format string, args ...any) {
	if st.opts.Progress != nil {
		fmt.Fprintf(st.opts.Progress, format+"\n", args...)
	}
}

// build compiles the commands of the checkout the harness runs in (./cmd/...) and returns the reference's.
// Building them all by pattern keeps harness/ free of any path into the reference: it only ever runs the
// binary, as it would run anyone's implementation.
func (st *Stack) build(ctx context.Context) (string, error) {
	root, err := Checkout()
	if err != nil {
		return "", err
	}
	binDir := filepath.Join(st.dir, "bin")
	st.progress("building the reference from %s", root)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the commands of %s: %w\n%s", root, err, out)
	}
	return filepath.Join(binDir, "reference"), nil
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

// Stop ends every service (SIGTERM to the process group of `reference up`, SIGKILL after a grace period) and
// removes the temporary directory. Logs stay in LogDir when one was given. Stop may be called more than once.
func (st *Stack) Stop() {
	if st.up != nil {
		st.up.Stop(15 * time.Second)
		st.up = nil
	}
	if st.dir != "" {
		_ = os.RemoveAll(st.dir)
		st.dir = ""
	}
}

// Group is the process group of the running stack (the pid of `reference up`), for tests that check nothing
// is left behind.
func (st *Stack) Group() int {
	if st.up == nil {
		return 0
	}
	return st.up.PID()
}

// Dir is the temporary directory of the stack, removed by Stop.
func (st *Stack) Dir() string { return st.dir }

// version names the checkout the reference was built from, when git can tell.
func version() string {
	root, err := Checkout()
	if err != nil {
		return ""
	}
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
