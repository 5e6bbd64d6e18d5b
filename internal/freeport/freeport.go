// Package freeport gives tests a loopback port to bind: asked of the kernel, so parallel test binaries (and a
// compose stack on the spec's ports) never collide on a fixed number.
package freeport

import (
	"net"
	"testing"
)

// Get returns a loopback port that was free a moment ago. Another process could take it before the caller
// binds it; the caller's start then fails with a clear error rather than hanging.
func Get(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
