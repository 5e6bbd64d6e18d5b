package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// up runs every service in one process with embedded defaults (the demo), or, with --processes, each service
// as a child process on free ports, as a conformance run needs it (processes.go). Both build a service from the
// same flags, its args in the stack's plan (services.go): the demo parses them with the service's `serve` flag
// set in this process, the process stack passes them to `serve NAME`.
func (c *cli) up(ctx context.Context, args []string) int {
	fs := c.newFlagSet("reference up")
	data := fs.String("data", c.defaultDataDir(), "directory for the demo data (the configuration repository, caches)")
	host := fs.String("host", "127.0.0.1", "address every service binds (0.0.0.0 for every interface)")
	processes := fs.Bool("processes", false, "run each service as a child process on free loopback ports, with a rabbitmq-server for the refresh bus, a redis-server, two gateway instances and a fresh configuration repository in --data: the stack a conformance run uses")
	targetFile := fs.String("target-file", "", "with --processes: once every service answers, write the target file (tck validate's format) describing the stack to this path")
	logDir := fs.String("log-dir", "", "with --processes: one log file per service in this directory (default: DATA/logs)")
	fs.Var(portsFlag{c}, "port", "SERVICE=PORT moves one service off its default port, e.g. --port fortune=18787 (repeatable; 0: a free one)")
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
	return c.upDemo(ctx, demoOptions{data: *data, host: *host, logs: logs})
}

// demoOptions are the flags of up without --processes.
type demoOptions struct {
	data, host string
	logs       logFlags
}

// upDemo runs every service in this process: up binds every socket first, so
// that each service's args name the others' real URLs (port 0 included),
// then builds each service from its `serve` flags and serves it, in order.
func (c *cli) upDemo(ctx context.Context, o demoOptions) int {
	log, err := o.logs.logger(c.stderr)
	if err != nil {
		return c.fail("reference up", err)
	}
	dataDir, err := filepath.Abs(o.data)
	if err != nil {
		return c.fail("reference up", err)
	}
	bs, err := listen(o.host, services, c.portFor)
	var le *listenError
	if errors.As(err, &le) {
		err = portTaken(err, moveWith(le.service))
	}
	if err != nil {
		return c.fail("reference up", err)
	}
	p := &plan{dataDir: dataDir, urls: make(map[string]string), configRepo: filepath.Join(dataDir, "config-repo"), demo: true}
	for _, b := range bs {
		p.urls[b.svc.name] = b.url
	}
	r := c.newRunner(log, bs)
	for _, b := range bs {
		env := buildEnv{log: log.With("service", b.svc.name), stdout: c.stdout, oneProcess: true,
			freePorts: b.svc.ownSockets && c.portFor(b.svc) == 0}
		if b.inst, err = c.build(ctx, b.svc, c.demoArgs(b, p, o.host, *o.logs.level), env); err != nil {
			r.stop()
			return c.fail("reference up", portTaken(fmt.Errorf("%s: %w", b.svc.name, err), moveWith(b.svc.name)))
		}
		r.start(b)
	}
	c.printStack(dataDir, bs)
	r.announce()
	return r.wait(ctx)
}

// moveWith is how up gives a service another port.
func moveWith(service string) string {
	return fmt.Sprintf("move %s with --port %s=PORT", service, service)
}

// demoArgs are the `serve` flags of b's service in the demo: where up bound
// it, with up's log level, and its args in p. A service with own sockets
// shifts the ports of its configuration by its port's offset from the
// default.
func (c *cli) demoArgs(b *binding, p *plan, host, level string) []string {
	args := []string{"--host", host, "--log-level", level}
	switch {
	case b.ln != nil:
		_, port, _ := net.SplitHostPort(b.ln.Addr().String())
		args = append(args, "--port", port)
	case c.portFor(b.svc) != 0:
		args = append(args, "--port-offset", strconv.Itoa(c.portFor(b.svc)-b.svc.port))
	}
	return append(args, b.svc.args(p)...)
}

// build builds svc from args as serve does, the flag set's own errors aside:
// args that do not parse are a fault of the wiring, reported as such.
func (c *cli) build(ctx context.Context, svc *service, args []string, env buildEnv) (*instance, error) {
	fs, _, build := c.serviceFlagSet(svc)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("the stack's flags %q do not parse: %w", args, err)
	}
	return build(ctx, env)
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

// portsFlag is up's --port SERVICE=PORT: another port for one service of the stack.
type portsFlag struct{ c *cli }

func (f portsFlag) String() string { return "" }

func (f portsFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	port, err := strconv.Atoi(value)
	if !ok || err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("%q: write SERVICE=PORT, a port from 0 to 65535", v)
	}
	if !slices.ContainsFunc(services, func(s *service) bool { return s.name == name }) {
		var names []string
		for _, s := range services {
			names = append(names, s.name)
		}
		return fmt.Errorf("%q: no service %q; the services: %s", v, name, strings.Join(names, ", "))
	}
	if f.c.ports == nil {
		f.c.ports = map[string]int{}
	}
	f.c.ports[name] = port
	return nil
}
