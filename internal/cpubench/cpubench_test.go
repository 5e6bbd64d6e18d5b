//go:build unix

package cpubench

import "testing"

// Work on the CPU shows in cpuTime.
func TestCPUTimeCountsWork(t *testing.T) {
	start := cpuTime()
	x := 0
	for i := range 200_000_000 {
		x ^= i
	}
	if cpuTime() <= start {
		t.Fatalf("no CPU time counted (%d)", x)
	}
}
