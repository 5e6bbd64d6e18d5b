package configserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Callers that arrive during a run share the next run, never the one in
// flight: that run may have read the repository before their commit.
func TestCoalescerAnswersFromARunStartedAfterTheCall(t *testing.T) {
	var runs atomic.Int64
	release := make(chan struct{})
	started := make(chan int64, 10)
	c := &coalescer{fn: func() error {
		n := runs.Add(1)
		started <- n
		<-release
		return fmt.Errorf("run %d", n)
	}}

	first := make(chan error, 1)
	go func() { first <- c.do(context.Background()) }()
	if n := <-started; n != 1 {
		t.Fatalf("first run is %d", n)
	}

	var wg sync.WaitGroup
	later := make([]error, 5)
	for i := range later {
		wg.Go(func() { later[i] = c.do(context.Background()) })
	}
	waitFor(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.pending != nil
	})
	time.Sleep(10 * time.Millisecond) // let every caller join the pending run

	release <- struct{}{}
	if err := <-first; err.Error() != "run 1" {
		t.Fatalf("first caller got %v", err)
	}
	if n := <-started; n != 2 {
		t.Fatalf("second run is %d", n)
	}
	release <- struct{}{}
	wg.Wait()
	for i, err := range later {
		if err == nil || err.Error() != "run 2" {
			t.Errorf("caller %d got %v, want run 2", i, err)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d runs for 6 callers, want 2", n)
	}
}

func TestCoalescerCallerContext(t *testing.T) {
	release := make(chan struct{})
	c := &coalescer{fn: func() error { <-release; return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.do(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller got %v", err)
	}
	close(release)
	if err := c.do(context.Background()); err != nil {
		t.Fatalf("next caller got %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

// Callers that become ready together share a run instead of each starting
// one: the leader yields before its run starts. Without the yield nearly
// every burst ran once per caller; with it, once or twice.
func TestCoalescerBatchesCallersReadyTogether(t *testing.T) {
	var runs atomic.Int64
	c := &coalescer{fn: func() error { runs.Add(1); return nil }}
	const bursts, callers = 100, 8
	for range bursts {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				<-start
				_ = c.do(context.Background())
			})
		}
		close(start)
		wg.Wait()
	}
	if n := runs.Load(); n > bursts*callers/2 {
		t.Fatalf("%d runs for %d bursts of %d callers ready together, want at most %d", n, bursts, callers, bursts*callers/2)
	}
}
