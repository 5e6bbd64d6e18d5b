// Package freeport gives a loopback port to bind, asked of the kernel, so that parallel test binaries, the
// harness's child processes and a compose stack on the spec's ports never collide on a fixed number. It is the
// one place the module asks for a free port.
package freeport

import (
	"fmt"
	"net"
)

// Port returns a port on 127.0.0.1 that was free a moment ago. Another process could take it before the caller
// binds it; the caller's start then fails with a clear error rather than hanging.
func Port() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// TB is what Get needs of a test (testing.TB has it): the package stays out of the testing package, which the
// programs that use Port do not link.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Get is Port for a test, which fails when none can be found.
func Get(tb TB) int {
	tb.Helper()
	p, err := Port()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
