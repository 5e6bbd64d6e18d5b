package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interrupt is how tck run answers Ctrl-C (SIGINT) and SIGTERM. The first cancels ctx: every request, git
// operation, browser and wait of the run ends, the run removes what it created in the target (within 30 s)
// and stops what it started on this machine. The second closes hurry: the removals in the target stop at
// once; the services, containers and browsers the run started are still stopped. A third, or hardStop after
// the second, ends the process at once.
type interrupt struct {
	ctx   context.Context
	hurry chan struct{}
	stop  func()
}

// errInterrupted is the cause of a run's context that a signal ended.
var errInterrupted = errors.New("interrupted")

// hardStop is how long tck may take to stop after a second Ctrl-C.
const hardStop = 5 * time.Second

func onInterrupt(stderr io.Writer) *interrupt {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	in := &interrupt{ctx: ctx, hurry: make(chan struct{})}
	done := make(chan struct{})
	in.stop = func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "tck: interrupted: removing what the run created and stopping what it started (Ctrl-C again to stop at once)")
		cancel(errInterrupted)
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "tck: stopping at once")
		close(in.hurry)
		select {
		case <-sigs:
		case <-time.After(hardStop):
		case <-done:
			return
		}
		os.Exit(exitInterrupted)
	}()
	return in
}
