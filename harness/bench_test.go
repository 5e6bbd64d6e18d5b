package harness

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/internal/testbin"
)

// BenchmarkWholeSuite runs every scenario against the reference, one after the other (the baseline) and at the
// default concurrency, on one reference stack: `make bench` prints the second as a ratio of the first, and
// both as wall time per run (ns/op) and scenarios per second. The suite's own summary prints the wall time of
// every run too; a timed test would fail on a slow machine for no fault of the code.
func BenchmarkWholeSuite(b *testing.B) {
	ctx := context.Background()
	st, err := boot.Reference(ctx, boot.Options{Binary: testbin.Path(b, "reference"), LogDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Stop()
	for _, c := range []struct {
		name        string
		concurrency int
	}{{"Baseline", 1}, {"Concurrency" + strconv.Itoa(DefaultConcurrency), DefaultConcurrency}} {
		b.Run(c.name, func(b *testing.B) {
			scenarios := 0
			for b.Loop() {
				res, err := Run(ctx, Options{Target: st.Target, Format: "progress", ReportsDir: b.TempDir(),
					Output: io.Discard, Concurrency: c.concurrency})
				if err != nil {
					b.Fatal(err)
				}
				if res.Failed > 0 || res.Blocked > 0 || res.Passed == 0 {
					b.Fatalf("the reference must pass every scenario: %+v", res)
				}
				scenarios += res.Passed
			}
			b.ReportMetric(float64(scenarios)/b.Elapsed().Seconds(), "scenarios/s")
		})
	}
}
