//go:build !unix

package fortune

import "time"

// cpuTime is not measured here: the benchmarks report 0 cpu-ns/op.
func cpuTime() time.Duration { return 0 }
