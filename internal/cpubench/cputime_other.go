//go:build !unix

package cpubench

import "time"

// cpuTime is not measured here: benchmarks report 0 cpu-ns/op.
func cpuTime() time.Duration { return 0 }
