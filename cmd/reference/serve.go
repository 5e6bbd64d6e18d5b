package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	fs := c.newFlagSet("reference serve " + svc.name)
	port := new(int)
	if !svc.ownSockets {
		port = fs.Int("port", svc.port, "port to listen on (0: the kernel picks a free one; the address is logged and written to --ready-file)")
	}
	host := fs.String("host", "127.0.0.1", "address to bind (0.0.0.0 for every interface)")
	readyFile := fs.String("ready-file", c.getenv(readyFileEnv), "once listening, write the service's URL (http://HOST:PORT, the port bound, also with --port 0) to this file (written to a temporary file, then renamed; default: $"+readyFileEnv+")")
	logs := addLogFlags(fs)
	build := svc.flags(fs, c.getenv)
	fs.Usage = func() { c.serviceUsage(fs.Output(), svc, fs) }
	if code := c.parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if *port < 0 || *port > 65535 {
		return c.fail(fs.Name(), usageError{fmt.Errorf("invalid --port %d; valid: 0 to 65535", *port)})
	}
	log, err := logs.logger(c.stderr)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	log = log.With("service", svc.name)
	// Build first: a bad repository is reported before the port answers.
	inst, err := build(ctx, log)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	bs, err := listen(*host, []*service{svc}, func(*service) int { return *port })
	if err != nil {
		if inst.close != nil {
			_ = inst.close()
		}
		return c.fail(fs.Name(), err)
	}
	bs[0].inst = inst
	r := c.newRunner(log, bs)
	r.start(bs[0])
	r.announce()
	if *readyFile != "" {
		if err := writeReadyFile(*readyFile, bs[0].readyURL()); err != nil {
			r.log.Error("cannot write the ready file", "path", *readyFile, "err", err)
			r.stop()
			return exitError
		}
	}
	return r.wait(ctx)
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
	return writeFileAtomically(path, []byte(url+"\n"))
}

// writeFileAtomically writes a temporary file beside path and renames it.
func writeFileAtomically(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
