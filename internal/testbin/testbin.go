// Package testbin builds this module's commands (tck, reference) once per test process, for the tests that
// run them as programs: tck as a child process, the reference stack that harness/boot starts. Linking one
// takes 3-5 s of CPU on the 2-CPU VM (the reference 4.4 s, tck 2.6 s), and before this package make test
// linked them some twenty times, every boot of the reference building every command.
//
// A test package that uses it removes the binaries at its end with Main, from its TestMain.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// module is this module's path: commands are built by import path, so that any package folder of the
// checkout can build them.
const module = "github.com/fortune-tck/fortune-tck"

var (
	mu    sync.Mutex
	dir   string             // the folder holding the binaries, made at the first build
	built = map[string]bin{} // by command name
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

// Main runs the tests, then removes the binaries built for them; call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	mu.Unlock()
	os.Exit(code)
}
