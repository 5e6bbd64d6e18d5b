// Command load measures the reference services under load, each as a ratio
// to a baseline measured in the same run (the figures of issue 11): the
// machine's speed cancels out, and the figures compare across machines.
//
//	go run ./tools/load [-d 5s] [-c 32] [-only gateway,fortune,config] [-profile DIR]
//
// It builds the reference, starts every service and its baseline as
// separate processes on loopback, drives each with c keep-alive
// connections in a closed loop (as wrk does), and prints one line per
// figure with its target. Each figure alternates its subject with its
// baseline (baseline, subject, baseline, ...) for d of the subject in all,
// and is the median of the rounds' ratios: the machine's pace drifts over a
// run, and runs seconds apart share it. A service that cannot start is named with the
// reason, and no ratio is printed for a figure whose run failed. With
// -profile, every reference service is started with --pprof and a CPU
// profile of it under each figure's load is written to DIR.
//
//	go run ./tools/load -scale config,gateway [-rounds 20]
//
// measures instead what grows with the data a service holds, each figure
// at a small and a large size and as their ratio, then the budgets of the
// large size and whether each holds (scale.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// fixedBodyCommand makes this program the baseline server instead.
const fixedBodyCommand = "fixed-body"

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case fixedBodyCommand:
			os.Exit(serveFixedBody(os.Args[2:]))
		case netHTTPProbeCommand, rawProbeCommand:
			os.Exit(serveProbe(os.Args[1], os.Args[2:]))
		}
	}
	d := flag.Duration("d", 5*time.Second, "duration of each measurement")
	conns := flag.Int("c", 32, "keep-alive connections driving each service")
	rounds := flag.Int("rounds", 3, "rounds per figure: the subject and its baseline in turn, d/rounds each; the figure is the median of the rounds' ratios")
	only := flag.String("only", "gateway,fortune,config", "groups to measure: gateway, fortune, config")
	profile := flag.String("profile", "", "write a CPU profile of each reference service under each figure's load to this directory (go tool pprof FILE)")
	scale := flag.String("scale", "", "instead, measure what grows with the data (scale.go): config, gateway, or both, comma-separated; -rounds samples per size (20 by default)")
	flag.Parse()
	if *scale != "" {
		os.Exit(scaleMain(*scale, *rounds))
	}
	groups := strings.Split(*only, ",")
	for _, g := range groups {
		if !slices.Contains([]string{"gateway", "fortune", "config"}, g) {
			fmt.Fprintf(os.Stderr, "load: unknown group %q in -only; valid: gateway, fortune, config\n", g)
			os.Exit(2)
		}
	}
	if *rounds < 1 || *d/time.Duration(max(*rounds, 1)) < 500*time.Millisecond || *conns < 1 {
		fmt.Fprintln(os.Stderr, "load: -rounds must be at least 1, -d at least 500ms per round and -c at least 1")
		os.Exit(2)
	}
	os.Exit(run(groups, *d, *rounds, *conns, *profile))
}

func run(groups []string, d time.Duration, rounds, conns int, profileDir string) int {
	dir, err := os.MkdirTemp("", "fortune-tck-load-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	s := &stack{dir: dir, profile: profileDir != ""}
	defer s.stop()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := s.build(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	host, _ := os.Hostname()
	fmt.Printf("load: %s, %d CPUs, %s per figure in %d rounds, %d connections, loopback\n", host, cpus(), d, rounds, conns)
	m := &meter{d: d, rounds: rounds, conns: conns, ctx: ctx}
	if profileDir != "" {
		if err := os.MkdirAll(profileDir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			return 1
		}
		m.profiler = &profiler{dir: profileDir}
		fmt.Println("load: profiling; the profiler's own cost lowers the figures a little")
	}
	if slices.Contains(groups, "gateway") || slices.Contains(groups, "fortune") {
		proxyAndTokens(s, m, slices.Contains(groups, "gateway"), slices.Contains(groups, "fortune"))
	}
	if slices.Contains(groups, "config") && ctx.Err() == nil {
		config(s, m)
	}
	return m.report()
}

// serveFixedBody answers every request with a fixed small JSON body, or a
// file's bytes: the upper bound a proxy or service is compared with.
func serveFixedBody(args []string) int {
	fs := flag.NewFlagSet(fixedBodyCommand, flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	file := fs.String("body", "", "serve this file's bytes instead of a small quote")
	_ = fs.Parse(args)
	body := []byte(`{"type":"success","value":{"id":1,"quote":"Working with Spring Boot is like pair-programming with the Spring developers."}}`)
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		body = b
	}
	err := http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	fmt.Fprintln(os.Stderr, err)
	return 1
}
