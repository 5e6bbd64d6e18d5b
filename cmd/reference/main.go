// Command reference runs the fortune-tck reference implementation: every
// service in one process (reference up) or one service configured by flags
// (reference serve SERVICE). Run "reference --help" for the commands.
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
