// Package cpubench reports a benchmark's CPU time per operation: the
// process's user and system time on every thread, the garbage collector's
// included. On a machine shared with other work ns/op moves by half from
// run to run; the CPU a request costs barely does.
package cpubench

import "testing"

// Report starts counting; the func it returns reports cpu-ns/op:
//
//	defer cpubench.Report(b)()
func Report(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}
