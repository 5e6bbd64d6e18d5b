package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/fortune-tck/fortune-tck/internal/atomicfile"
)

// serve runs one service: reference serve SERVICE [flags].
func (c *cli) serve(ctx context.Context, args []string) int {
	if len(args) == 0 || isHelpFlag(args[0]) || args[0] == "help" {
		w, code := c.stderr, exitUsage
		if len(args) > 0 {
			w, code = c.stdout, exitOK
		}
		c.serveUsage(w)
		return code
	}
	svc := lookupService(args[0])
	if svc == nil {
		fmt.Fprintf(c.stderr, "reference serve: unknown service %q; valid services: %s\n", args[0], strings.Join(serviceNames(), ", "))
		return exitUsage
	}
	fs, f, build := c.serviceFlagSet(svc)
	if code := c.parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if *f.port < 0 || *f.port > 65535 {
		return c.fail(fs.Name(), usageError{fmt.Errorf("invalid --port %d; valid: 0 to 65535", *f.port)})
	}
	log, err := f.logs.logger(c.stderr)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	log = log.With("service", svc.name)
	if *f.pprof != "" {
		_, stop, err := servePprof(*f.pprof, log)
		if err != nil {
			return c.fail(fs.Name(), err)
		}
		defer stop()
	}
	if err := removeStale(*f.readyFile); err != nil {
		return c.fail(fs.Name(), fmt.Errorf("--ready-file: %w", err))
	}
	// Build first: a bad repository is reported before the port answers.
	inst, err := build(ctx, buildEnv{log: log, stdout: c.stdout})
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	bs, err := listen(*f.host, []*service{svc}, func(*service) int { return *f.port })
	if err != nil {
		if inst.close != nil {
			_ = inst.close()
		}
		return c.fail(fs.Name(), portTaken(err, "give another --port"))
	}
	bs[0].inst = inst
	r := c.newRunner(log, bs)
	r.named = true // log names the service already
	r.start(bs[0])
	r.announce()
	if *f.readyFile != "" {
		if err := writeReadyFile(*f.readyFile, bs[0].readyURL()); err != nil {
			r.log.Error("cannot write the ready file", "path", *f.readyFile, "err", err)
			r.stop()
			return exitError
		}
		defer removeStale(*f.readyFile) // once stopped, the address it names is no service's
	}
	return r.wait(ctx)
}

// serveFlags are the flags serve declares for every service.
type serveFlags struct {
	port            *int // 0 for a service with own sockets, which has no --port
	host, readyFile *string
	pprof           *string // serve only: up runs many services in one process
	logs            logFlags
}

// serviceFlagSet declares every flag of `serve NAME`: serve's own, then the
// service's. up parses the flags of its services with it too.
func (c *cli) serviceFlagSet(svc *service) (*flag.FlagSet, serveFlags, buildFunc) {
	fs := c.newFlagSet("reference serve " + svc.name)
	f := serveFlags{port: new(int)}
	if !svc.ownSockets {
		f.port = fs.Int("port", svc.port, "port to listen on (0: the kernel picks a free one; the address is logged and written to --ready-file)")
	}
	f.host = fs.String("host", "127.0.0.1", "address to bind (0.0.0.0 for every interface)")
	f.readyFile = fs.String("ready-file", c.getenv(readyFileEnv), "once listening, write the service's URL (http://HOST:PORT, the port bound, also with --port 0) to this file (written to a temporary file, then renamed; default: $"+readyFileEnv+")")
	f.pprof = fs.String("pprof", "", "serve Go's profiles (net/http/pprof) on this address, e.g. 127.0.0.1:6060, for profiling under load; off when empty")
	f.logs = addLogFlags(fs)
	build := svc.flags(fs, c.getenv)
	fs.Usage = func() { c.serviceUsage(fs.Output(), svc, fs) }
	return fs, f, build
}

// flagValue is the value of the flag name in fs, "" when fs has none: the
// flags serve declares for every service (--host, --port), as a service's
// build reads them.
func flagValue(fs *flag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// ownURL is the URL a person types for the service that fs configures
// (--host, --port): the one up prints its hints with.
func ownURL(fs *flag.FlagSet) string {
	return displayHostPort(flagValue(fs, "host"), flagValue(fs, "port"))
}

// externalURL is --url, or http://localhost:PORT. what (the token issuer,
// the redirect URI) must be known before the port is bound, so --port 0
// needs --url.
func externalURL(fs *flag.FlagSet, explicit, what string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	port := cmp.Or(flagValue(fs, "port"), "0")
	if port == "0" {
		return "", usageError{fmt.Errorf("--url is required with --port 0 (%s must be known at start)", what)}
	}
	return "http://localhost:" + port, nil
}

func (c *cli) serveUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: reference serve SERVICE [flags]\n\nRuns one service of the reference stack.\n\nServices:\n")
	c.serviceList(w)
	fmt.Fprint(w, "\nRun \"reference serve SERVICE --help\" for its flags.\n")
}

func (c *cli) serviceUsage(w io.Writer, svc *service, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: reference serve %s [flags]\n\nRuns the %s.\n\n%sFlags (-flag and --flag are the same):\n", svc.name, svc.summary, svc.notes)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// writeReadyFile writes url and a newline to path atomically: a reader
// polling for the file sees nothing or the whole URL, never a part.
func writeReadyFile(path, url string) error {
	return atomicfile.Write(path, []byte(url+"\n"))
}

// removeStale removes a ready (or target) file: one an earlier run left at path, before anything that can
// fail, and this run's once it stops. Whoever waits for the file must find the running service's address or
// none, never an old one.
func removeStale(path string) error {
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing what an earlier run left there: %w", err)
	}
	return nil
}
