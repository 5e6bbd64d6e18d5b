// Package testbin builds this module's commands (tck, reference) once per test process, for the tests that
// run them as programs: tck as a child process, the reference stack that harness/boot starts. Linking one
// takes 3-5 s of CPU on the 2-CPU VM (the reference 4.4 s, tck 2.6 s), and before this package make test
// linked them some twenty times, every boot of the reference building every command.
//
// It also boots the reference stack once per test process (Reference) for the tests that only run the suite
// against it, one after the other: a boot takes 14 s here, 7 s of CPU of it RabbitMQ's. The suite leaves a
// target as it found it (harness's TestConformanceOfTheReference checks it), so each such test finds the
// stack as the first did.
//
// A test package that uses it stops the stack and removes the binaries at its end with Main, from its
// TestMain.
package testbin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/target"
)

// module is this module's path: commands are built by import path, so that any package folder of the
// checkout can build them.
const module = "github.com/fortune-tck/fortune-tck"

var (
	mu    sync.Mutex
	dir   string             // the folder holding the binaries, made at the first build
	built = map[string]bin{} // by command name

	stack    *boot.Stack // the shared reference stack, booted at the first call of Reference
	stackErr error
	logs     string // its services' logs, kept when a test failed
)

type bin struct {
	path string
	err  error
}

// Path returns the binary of the command name (the folder under cmd/: "tck", "reference") built from this
// checkout, building it at the first call of the process. A build that failed fails every test that asks.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	b, ok := built[name]
	if !ok {
		b = build(name)
		built[name] = b
	}
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

func build(name string) bin {
	if dir == "" {
		d, err := os.MkdirTemp("", "fortune-tck-testbin-")
		if err != nil {
			return bin{err: err}
		}
		dir = d
	}
	path := filepath.Join(dir, name)
	out, err := exec.Command("go", "build", "-o", path, module+"/cmd/"+name).CombinedOutput()
	if err != nil {
		return bin{err: fmt.Errorf("building %s: %v\n%s", name, err, out)}
	}
	return bin{path: path}
}

// Reference returns the target of the reference stack shared by the tests of the process, booting it at the
// first call. Each call reads the stack's target file anew, so that a test may change what it gets. Tests
// that use it must not run in parallel with each other, and must leave the stack as they found it.
func Reference(tb testing.TB) *target.Target {
	tb.Helper()
	bin := Path(tb, "reference")
	mu.Lock()
	defer mu.Unlock()
	if stack == nil && stackErr == nil {
		var err error
		if logs, err = os.MkdirTemp("", "fortune-tck-testbin-logs-"); err != nil {
			tb.Fatal(err)
		}
		stack, stackErr = boot.Reference(context.Background(), boot.Options{Binary: bin, LogDir: logs})
		if stackErr != nil {
			stackErr = fmt.Errorf("booting the reference (logs in %s): %w", logs, stackErr)
		}
	}
	if stackErr != nil {
		tb.Fatal(stackErr)
	}
	tg, err := target.Load(filepath.Join(stack.Dir(), "target.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	tg.Implementation.Version = stack.Target.Implementation.Version
	return tg
}

// Main runs the tests, then stops the shared stack and removes the binaries built for them; call it from
// TestMain.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	if stack != nil {
		stack.Stop()
	}
	if logs != "" && code == 0 {
		_ = os.RemoveAll(logs)
	} else if logs != "" {
		fmt.Fprintf(os.Stderr, "the shared reference stack's logs: %s\n", logs)
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	mu.Unlock()
	os.Exit(code)
}
