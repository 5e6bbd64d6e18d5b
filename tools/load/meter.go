package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// meter runs the measurements and keeps the figures.
type meter struct {
	d       time.Duration // of a figure's subject in all, split over its rounds
	rounds  int
	conns   int
	ctx     context.Context
	figures []figure
	// profiler is set with -profile.
	profiler *profiler
}

// comparison is one figure to measure: a subject against its baseline.
type comparison struct {
	name   string
	target string // e.g. ">= 0.50"; empty for a figure given for context
	min    float64
	base   started
	subj   started
	// anchor is another project's figure in the same run (nginx): without
	// it the run still measured everything it promised.
	anchor bool
}

// figure is one line of the report: a ratio, or why there is none.
type figure struct {
	comparison
	ratio  float64 // the median of the rounds' ratios; < 0 for a check (note)
	lo, hi float64 // the lowest and highest round
	rps    float64 // the subject's median req/s
	// cpu is the median CPU time the subject's processes spent per
	// answer; 0 when it could not be read. It tells where a figure's
	// CPU goes (the Redis figure's less the in-memory one is what Redis
	// costs); between runs it moves about as much as the ratio does.
	cpu time.Duration
	// cpuEach splits cpu over the subject's processes, when it has
	// several: the median of each one's CPU per answer.
	cpuEach []time.Duration
	err     error
}

// compare measures c and records its figure.
func (m *meter) compare(c comparison) {
	f := figure{comparison: c}
	var ratios, rps, cpu []float64
	var each [][]float64
	ratios, rps, cpu, each, f.err = m.roundsOf(c)
	if f.err == nil {
		f.ratio, f.lo, f.hi = median(ratios), slices.Min(ratios), slices.Max(ratios)
		f.rps = median(rps)
		if len(cpu) > 0 {
			f.cpu = time.Duration(median(cpu))
		}
		if len(each) > 1 {
			for _, e := range each {
				f.cpuEach = append(f.cpuEach, time.Duration(median(e)))
			}
		}
	}
	m.figures = append(m.figures, f)
}

// roundsOf drives baseline, subject, baseline, ... and gives each round's
// ratio to the mean of the baseline runs on either side of it, and the
// subject's CPU per answer where it can be read, in all and per process
// (each[i] is procs[i]'s rounds). A failed setup or run gives no ratio
// at all.
func (m *meter) roundsOf(c comparison) (ratios, rps, cpu []float64, each [][]float64, err error) {
	switch {
	case c.base.err != nil:
		return nil, nil, nil, nil, fmt.Errorf("the baseline failed: %w", c.base.err)
	case c.subj.err != nil:
		return nil, nil, nil, nil, c.subj.err
	}
	per := m.d / time.Duration(m.rounds)
	run := func(t target) (result, error) {
		if err := m.ctx.Err(); err != nil {
			return result{}, err
		}
		r := drive(t, m.conns, per)
		return r, r.err()
	}
	m.profiler.during(time.Duration(2*m.rounds+1)*(per+warmUp), c.subj.t.procs, func() {
		var before result
		if before, err = run(c.base.t); err != nil {
			err = fmt.Errorf("the baseline failed: %w", err)
			return
		}
		for range m.rounds {
			var s, after result
			if s, err = run(c.subj.t); err != nil {
				return
			}
			if after, err = run(c.base.t); err != nil {
				err = fmt.Errorf("the baseline failed: %w", err)
				return
			}
			ratios = append(ratios, s.rps/((before.rps+after.rps)/2))
			rps = append(rps, s.rps)
			if s.cpuOK {
				cpu = append(cpu, float64(s.cpu)/float64(s.ok))
				if each == nil {
					each = make([][]float64, len(s.cpuEach))
				}
				for i, e := range s.cpuEach {
					each[i] = append(each[i], float64(e)/float64(s.ok))
				}
			}
			before = after
		}
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return ratios, rps, cpu, each, nil
}

// median of a non-empty list.
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// note records a line that is not a ratio (the commit check).
func (m *meter) note(name string, err error) {
	m.figures = append(m.figures, figure{comparison: comparison{name: name}, err: err, ratio: -1})
}

// report prints the figures; it fails when one was not measured or misses
// its target.
func (m *meter) report() int {
	code := 0
	fmt.Println()
	for _, f := range m.figures {
		switch {
		case f.err != nil && f.anchor:
			fmt.Printf("%-72s NO ANCHOR: %v\n", f.name, f.err)
		case f.err != nil:
			code = 1
			fmt.Printf("%-72s NOT MEASURED: %v\n", f.name, f.err)
		case f.ratio < 0:
			fmt.Printf("%-72s ok\n", f.name)
		default:
			verdict := ""
			if f.target != "" {
				verdict = "target " + f.target
				if f.ratio < f.min {
					verdict += "  BELOW TARGET"
				}
			}
			cpu := ""
			if f.cpu > 0 {
				cpu = fmt.Sprintf("%4.0f µs CPU/req", float64(f.cpu)/float64(time.Microsecond))
			}
			line := fmt.Sprintf("%-72s %5.2f  (%.2f-%.2f)  %6.0f req/s  %-15s  %-30s", f.name, f.ratio, f.lo, f.hi, f.rps, cpu, verdict)
			fmt.Println(strings.TrimRight(line+f.split(), " "))
		}
	}
	return code
}

// split names where the CPU of a figure served by several processes goes,
// e.g. "gateway 60 + envoyproxy/ratelimit 90 + redis-server 29 µs": the
// peer services' cost beside the reference's own.
func (f figure) split() string {
	if len(f.cpuEach) < 2 || len(f.cpuEach) != len(f.subj.t.procs) {
		return ""
	}
	parts := make([]string, len(f.cpuEach))
	for i, d := range f.cpuEach {
		name, _, _ := strings.Cut(f.subj.t.procs[i].name, " (")
		parts[i] = fmt.Sprintf("%s %.0f", name, float64(d)/float64(time.Microsecond))
	}
	return strings.Join(parts, " + ") + " µs"
}
