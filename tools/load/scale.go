package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The scale figures (issue 30, -scale) measure what grows with the data a
// service holds: each figure at a small and a large size, printed as the
// ratio of the large to the small, so that growth reads at a glance; then
// the budgets the large size must hold (issue 38), each with whether it
// holds. The services run as the load figures' do: the reference binary,
// on loopback, one at a time.

// scaleGroups are the groups -scale accepts.
var scaleGroups = []string{"config", "gateway"}

// scaleMain checks -scale's groups and runs them; the load figures'
// default of 3 rounds becomes 20 samples per size.
func scaleMain(groups string, rounds int) int {
	var gs []string
	for _, g := range strings.Split(groups, ",") {
		if !slices.Contains(scaleGroups, g) {
			fmt.Fprintf(os.Stderr, "load: unknown group %q in -scale; valid: %s\n", g, strings.Join(scaleGroups, ", "))
			return 2
		}
		gs = append(gs, g)
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rounds" })
	if !set {
		rounds = 20
	}
	return runScale(gs, rounds)
}

// runScale measures the groups' scale figures and prints them; 1 when a
// figure could not be measured or misses its target or budget.
func runScale(groups []string, rounds int) int {
	dir, err := os.MkdirTemp("", "fortune-tck-scale-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	s := &stack{dir: dir}
	defer s.stop()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := s.build(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	host, _ := os.Hostname()
	fmt.Printf("scale: %s, %d CPUs, %d samples per size\n", host, cpus(), rounds)
	r := &scaleReport{ctx: ctx}
	if slices.Contains(groups, "config") {
		scaleConfig(s, r, rounds)
	}
	if slices.Contains(groups, "gateway") && ctx.Err() == nil {
		scaleGateway(s, r, rounds)
	}
	return r.failed
}

// scaleReport prints the figures as they come.
type scaleReport struct {
	ctx    context.Context
	failed int
}

// sized is one figure at one size: its median time, the median CPU time
// the service spent, and what else the figure reports.
type sized struct {
	size  string
	wall  time.Duration
	cpu   time.Duration
	extra string
}

// figure prints a figure at its two sizes and the ratio of their times
// (and of the service's CPU times, when known); max > 0 is the target the
// ratio must not exceed.
func (r *scaleReport) figure(name string, small, large sized, max float64, err error) {
	if err != nil {
		r.failed = 1
		fmt.Printf("%-58s not measured: %v\n", name, err)
		return
	}
	ratio := float64(large.wall) / float64(small.wall)
	cpuRatio := ""
	if small.cpu > 0 && large.cpu > 0 {
		cpuRatio = fmt.Sprintf(" (CPU %.2f)", float64(large.cpu)/float64(small.cpu))
	}
	verdict := ""
	if max > 0 {
		verdict = fmt.Sprintf("  target <= %.0fx", max)
		if ratio > max {
			verdict += " MISSED"
			r.failed = 1
		}
	}
	fmt.Printf("%s\n  %-14s %s\n  %-14s %s\n  ratio %.2f%s%s\n", name,
		small.size, small.describe(), large.size, large.describe(), ratio, cpuRatio, verdict)
}

// budget prints whether a budget holds: what was measured against it.
func (r *scaleReport) budget(name, measured, budget string, holds bool, err error) {
	verdict := "holds"
	switch {
	case err != nil:
		verdict, measured = "NOT MEASURED", err.Error()
	case !holds:
		verdict = "MISSED"
	}
	if verdict != "holds" {
		r.failed = 1
	}
	fmt.Printf("  %-56s %-34s budget %-9s %s\n", name, measured, budget, verdict)
}

func (s sized) describe() string {
	d := roundDuration(s.wall).String()
	if s.cpu > 0 {
		d += fmt.Sprintf(" (CPU %s)", roundDuration(s.cpu))
	}
	if s.extra != "" {
		d += ", " + s.extra
	}
	return d
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}

// cpuTime is the CPU time a process has used, in nanoseconds: the sum of
// its threads' /proc/PID/task/TID/schedstat, far finer than /proc/PID/stat's
// ticks of 10 ms, which a request of a millisecond would not show.
func cpuTime(p *proc) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", p.cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := bytes.Fields(b)
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err == nil {
			sum += time.Duration(ns)
		}
	}
	return sum, nil
}

// peakMemory is the most memory the process has held (VmHWM, its peak
// resident set).
func peakMemory(p *proc) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

// diskSize is the bytes of the regular files under dir.
func diskSize(dir string) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return err
	})
	return n, err
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// startTimed starts the reference binary's service and returns its URL
// once it wrote its ready file, and how long that took: polled finely,
// unlike stack.service, since a start may take a tenth of a second.
func (s *stack) startTimed(name string, args ...string) (string, *proc, time.Duration, error) {
	ready := filepath.Join(s.dir, slug(name)+".url")
	_ = os.Remove(ready)
	args = append([]string{"serve"}, append(args, "--ready-file", ready, "--log-level", "warn")...)
	start := time.Now()
	p, err := s.start(name, s.ref, args...)
	if err != nil {
		return "", nil, 0, err
	}
	deadline := start.Add(2 * time.Minute)
	for {
		if b, err := os.ReadFile(ready); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b)), p, time.Since(start), nil
		}
		select {
		case <-p.done:
			return "", nil, 0, fmt.Errorf("%s exited before it was ready: %s", name, p.tail())
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", nil, 0, fmt.Errorf("%s not ready after 2 minutes: %s", name, p.tail())
		}
	}
}

// stopOne ends one process of the stack, by its own id.
func (s *stack) stopOne(p *proc) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	s.procs = slices.DeleteFunc(s.procs, func(q *proc) bool { return q == p })
}
