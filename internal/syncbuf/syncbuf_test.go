package syncbuf

import (
	"fmt"
	"sync"
	"testing"
)

func TestConcurrentWritesAndLines(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(&b, "line from writer %d\n", i)
			_ = b.String()
		}()
	}
	wg.Wait()
	if got := len(b.Lines("line from writer")); got != 8 {
		t.Errorf("%d lines, want 8:\n%s", got, b.String())
	}
	b.Logger().Debug("hello", "k", "v")
	if len(b.Lines("msg=hello k=v")) != 1 {
		t.Errorf("the logger did not write a debug line:\n%s", b.String())
	}
}
