package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
)

// up runs every service in one process with embedded defaults (the demo), or, with --processes, each service
// as a child process on free ports, as a conformance run needs it (processes.go).
func (c *cli) up(ctx context.Context, args []string) int {
	fs := c.newFlagSet("reference up")
	data := fs.String("data", c.defaultDataDir(), "directory for the demo data (the configuration repository, caches)")
	host := fs.String("host", "127.0.0.1", "address every service binds (0.0.0.0 for every interface)")
	processes := fs.Bool("processes", false, "run each service as a child process on free loopback ports, with a redis-server, two gateway instances and a fresh configuration repository in --data: the stack a conformance run uses")
	targetFile := fs.String("target-file", "", "with --processes: once every service answers, write the target file (tck validate's format) describing the stack to this path")
	logDir := fs.String("log-dir", "", "with --processes: one log file per service in this directory (default: DATA/logs)")
	logs := addLogFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: reference up [flags]\n\nRuns every service of the reference stack in one process, on the default ports:\n")
		c.serviceList(fs.Output())
		fmt.Fprint(fs.Output(), "\nWith --processes, runs each of them as a child process on free ports instead, and writes\n"+
			"--target-file for tck run --target; stop it with SIGTERM or Ctrl-C.\n")
		fmt.Fprint(fs.Output(), "\nFlags (-flag and --flag are the same):\n")
		fs.PrintDefaults()
	}
	if code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	if !*processes && (*targetFile != "" || *logDir != "") {
		return c.fail(fs.Name(), usageError{errors.New("--target-file and --log-dir go with --processes")})
	}
	if *processes {
		return c.upProcesses(ctx, processOptions{data: *data, logDir: cmp.Or(*logDir, filepath.Join(*data, "logs")), targetFile: *targetFile})
	}
	log, err := logs.logger(c.stderr)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	dataDir, err := filepath.Abs(*data)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	bs, err := listen(*host, services, c.portFor)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	st := &stack{dataDir: dataDir, log: log, level: logs.slogLevel(), getenv: c.getenv, urls: make(map[string]string), host: *host, stdout: c.stdout}
	for _, b := range bs {
		st.urls[b.svc.name] = b.url
	}
	r := c.newRunner(log, bs)
	for _, b := range bs {
		if b.inst, err = b.svc.demo(ctx, st); err != nil {
			r.stop()
			return c.fail(fs.Name(), fmt.Errorf("%s: %w", b.svc.name, err))
		}
		r.start(b)
	}
	c.printStack(dataDir, bs)
	r.announce()
	return r.wait(ctx)
}

func (c *cli) portFor(s *service) int {
	if p, ok := c.ports[s.name]; ok {
		return p
	}
	return s.port
}

// defaultDataDir follows the XDG base directory convention.
func (c *cli) defaultDataDir() string {
	if xdg := c.getenv("XDG_DATA_HOME"); xdg != "" {
		return filepath.Join(xdg, "fortune-tck")
	}
	if home := c.getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "share", "fortune-tck")
	}
	return "fortune-tck-data"
}

func (c *cli) printStack(dataDir string, bs []*binding) {
	fmt.Fprintf(c.stdout, "fortune-tck reference stack (data in %s)\n\n", dataDir)
	for _, b := range bs {
		fmt.Fprintf(c.stdout, "  %-14s %s\n", b.svc.name, b.url)
		for _, h := range b.inst.hints {
			fmt.Fprintf(c.stdout, "  %-14s   %s\n", "", h)
		}
	}
	fmt.Fprint(c.stdout, "\nPress Ctrl-C to stop.\n")
}
