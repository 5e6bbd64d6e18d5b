package main

import (
	"strings"
	"testing"
)

func TestRatiosAgainstTheBaselineOfTheSameGroup(t *testing.T) {
	in := `goos: linux
BenchmarkEnvironment/Baseline-2         	  500000	      2000 ns/op	     512 B/op
BenchmarkEnvironment/Unchanged-2        	  100000	      9000 ns/op
BenchmarkOther/Fast-2                   	  100000	      1000 ns/op
PASS`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BenchmarkEnvironment/Unchanged", "4.50", "BenchmarkEnvironment/Baseline", "1.00"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run(strings.NewReader("PASS\n"), &out); err == nil {
		t.Error("input without results is not an error")
	}
}
