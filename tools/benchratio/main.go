// Command benchratio reads `go test -bench` output and prints every sub-benchmark as a ratio to the Baseline
// sub-benchmark of the same group, measured in the same run: absolute figures vary from machine to machine,
// ratios against a baseline on the same machine much less.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// line matches "BenchmarkGroup/Sub-2   1000   1234 ns/op ..." and keeps the group, the sub-benchmark and ns/op.
var line = regexp.MustCompile(`^(Benchmark[^/\s]+)/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

type result struct {
	group, name string
	nsPerOp     float64
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
}

func run(r io.Reader, w io.Writer) error {
	var results []result
	baseline := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return err
		}
		results = append(results, result{m[1], m[2], ns})
		if strings.EqualFold(m[2], "Baseline") {
			baseline[m[1]] = ns
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%-40s %14s %10s\n", "benchmark", "ns/op", "x baseline")
	for _, res := range results {
		ratio := "-"
		if b, ok := baseline[res.group]; ok && b > 0 {
			ratio = fmt.Sprintf("%.2f", res.nsPerOp/b)
		}
		fmt.Fprintf(w, "%-40s %14.0f %10s\n", res.group+"/"+res.name, res.nsPerOp, ratio)
	}
	if len(results) == 0 {
		return fmt.Errorf("no benchmark results with sub-benchmarks in the input")
	}
	return nil
}
