// Package needs is the fast tier's one rule for tests that run a program beyond Go and git (redis-server,
// PostgreSQL, Chromium, Docker, node, envoyproxy/ratelimit, make): under `go test -short` such a test is
// skipped with a message naming the program, so that a machine with only Go and git runs every other test in a
// couple of minutes. Without -short (make test), or when the environment variable CI is set, nothing is skipped
// here: the test goes on and fails when the program is missing, so missing coverage cannot pass unnoticed.
//
// The helpers that start such programs (redistest, pgtest, ratelimittest, dockertest, testproc) call it, so a
// test that uses them needs nothing more; a test that runs a program itself calls Program first.
package needs

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Program skips the test under -short, naming the programs it needs, unless CI is set.
func Program(tb testing.TB, programs ...string) {
	tb.Helper()
	if Skipped() {
		tb.Skip(message(programs))
	}
}

// Skipped reports whether tests that need a program beyond Go and git are skipped: under -short, unless CI is
// set.
func Skipped() bool { return skipped(testing.Short(), os.Getenv("CI")) }

func skipped(short bool, ci string) bool { return short && ci == "" }

func message(programs []string) string {
	return fmt.Sprintf("needs %s: skipped under -short (the fast tier runs with Go and git only; make test runs it)",
		strings.Join(programs, " and "))
}
