// Command reference runs the fortune-tck reference implementation: every
// service in one process (reference up), every service as a child process
// with a target file describing them (reference up --processes, the stack of
// a conformance run), or one service configured by flags (reference serve
// SERVICE). It owns the stack's wiring: each service is described once, by
// its `serve` flags and the flags a stack gives it (services.go), and both
// forms of up run it with those flags; the harness only starts up, reads the
// target file and stops the process group. Run "reference --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newCLI().run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
