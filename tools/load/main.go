// Command load measures the reference services under load, each as a ratio
// to a baseline measured in the same run (the figures of issue 11): the
// machine's speed cancels out, and the figures compare across machines.
//
//	go run ./tools/load [-d 5s] [-c 32] [-only gateway,fortune,config]
//
// It builds the reference, starts every service and its baseline as
// separate processes on loopback, drives each with c keep-alive
// connections in a closed loop (as wrk does) for d, and prints one line per
// figure with its target. A service that cannot start is named with the
// reason, and no ratio is printed for a figure whose run failed.
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
	if len(os.Args) > 1 && os.Args[1] == fixedBodyCommand {
		os.Exit(serveFixedBody(os.Args[2:]))
	}
	d := flag.Duration("d", 5*time.Second, "duration of each measurement")
	conns := flag.Int("c", 32, "keep-alive connections driving each service")
	only := flag.String("only", "gateway,fortune,config", "groups to measure: gateway, fortune, config")
	flag.Parse()
	groups := strings.Split(*only, ",")
	for _, g := range groups {
		if !slices.Contains([]string{"gateway", "fortune", "config"}, g) {
			fmt.Fprintf(os.Stderr, "load: unknown group %q in -only; valid: gateway, fortune, config\n", g)
			os.Exit(2)
		}
	}
	if *d < 500*time.Millisecond || *conns < 1 {
		fmt.Fprintln(os.Stderr, "load: -d must be at least 500ms and -c at least 1")
		os.Exit(2)
	}
	os.Exit(run(groups, *d, *conns))
}

func run(groups []string, d time.Duration, conns int) int {
	dir, err := os.MkdirTemp("", "fortune-tck-load-")
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
	fmt.Printf("load: %s, %d CPUs, %s per figure, %d connections, loopback\n", host, cpus(), d, conns)
	m := &meter{d: d, conns: conns, ctx: ctx}
	if slices.Contains(groups, "gateway") || slices.Contains(groups, "fortune") {
		proxyAndTokens(s, m, slices.Contains(groups, "gateway"), slices.Contains(groups, "fortune"))
	}
	if slices.Contains(groups, "config") && ctx.Err() == nil {
		config(s, m)
	}
	return m.report()
}

// meter runs the measurements and keeps the figures.
type meter struct {
	d       time.Duration
	conns   int
	ctx     context.Context
	figures []figure
}

// figure is one line of the report: a ratio, or why there is none.
type figure struct {
	name   string
	ratio  float64
	rps    float64
	target string // e.g. ">= 0.50"; empty for a figure given for context
	min    float64
	err    error
	// anchor is another project's figure in the same run (nginx): without
	// it the run still measured everything it promised.
	anchor bool
}

// measure drives t, or says why it was not measured (setup failed).
func (m *meter) measure(t target, setup error) (result, error) {
	if setup != nil {
		return result{}, setup
	}
	if m.ctx.Err() != nil {
		return result{}, m.ctx.Err()
	}
	r := drive(t, m.conns, m.d)
	return r, r.err()
}

// baseline is the mean of two runs of the baseline, before and after the
// figures that divide by it.
type baseline struct {
	first, second result
	err           error
}

func (b baseline) rps() float64 { return (b.first.rps + b.second.rps) / 2 }

// add records a figure from a run and its baseline.
func (m *meter) add(name, target string, min float64, r result, err error, b baseline) {
	f := figure{name: name, target: target, min: min, rps: r.rps}
	switch {
	case b.err != nil:
		f.err = fmt.Errorf("the baseline failed: %w", b.err)
	case err != nil:
		f.err = err
	default:
		f.ratio = r.rps / b.rps()
	}
	m.figures = append(m.figures, f)
}

// note records a line that is not a ratio (the commit check).
func (m *meter) note(name string, err error) {
	m.figures = append(m.figures, figure{name: name, err: err, ratio: -1})
}

// report prints the figures; it fails when one was not measured or misses
// its target.
func (m *meter) report() int {
	code := 0
	fmt.Println()
	for _, f := range m.figures {
		switch {
		case f.err != nil && f.anchor:
			fmt.Printf("%-62s NO ANCHOR: %v\n", f.name, f.err)
		case f.err != nil:
			code = 1
			fmt.Printf("%-62s NOT MEASURED: %v\n", f.name, f.err)
		case f.ratio < 0:
			fmt.Printf("%-62s ok\n", f.name)
		default:
			verdict := ""
			if f.target != "" {
				verdict = "target " + f.target
				if f.ratio < f.min {
					verdict += "  BELOW TARGET"
				}
			}
			fmt.Printf("%-62s %5.2f  (%6.0f req/s)  %s\n", f.name, f.ratio, f.rps, verdict)
		}
	}
	return code
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
