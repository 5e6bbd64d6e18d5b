package main

import (
	"github.com/fortune-tck/fortune-tck/internal/version"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the service could not start or failed
	exitUsage = 2 // bad command line
)

// cli is the command line program; tests run it in process.
type cli struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// listening, when set, learns each service's address once it listens.
	listening func(service, addr string)
	// ports, when set, overrides the default ports of `up` (tests use 0).
	ports map[string]int
}

func newCLI() *cli {
	return &cli{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
}

// usageError is a bad command line: exit code 2.
type usageError struct{ error }

func (c *cli) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		c.usage(c.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		c.usage(c.stdout)
		return exitOK
	case "-version", "--version", "version":
		fmt.Fprintln(c.stdout, version.String("reference"))
		return exitOK
	case "up":
		return c.up(ctx, args[1:])
	case "serve":
		return c.serve(ctx, args[1:])
	case "health":
		return c.health(ctx, args[1:])
	default:
		fmt.Fprintf(c.stderr, "reference: unknown command %q; valid commands: up, serve, health, help\n\n", args[0])
		c.usage(c.stderr)
		return exitUsage
	}
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprint(w, `reference runs the fortune-tck reference implementation.

Usage:
  reference up [--data DIR] [--host HOST]   run every service in one process, on the default ports,
                                            with embedded defaults (demo data created on first start)
  reference up --processes --target-file F each service as a child process on free ports; F describes
                                            the stack as a target file (what tck run uses)
  reference serve SERVICE [flags]           run one service, configured by flags
  reference health [--ready-file FILE]      exit 0 when the service that wrote FILE answers HTTP
                                            (a container's health check; FILE: $REFERENCE_READY_FILE)
  reference --help                          show this help
  reference --version                       the module version and VCS revision of this build

Services:
`)
	c.serviceList(w)
	fmt.Fprint(w, `
Run "reference up --help" or "reference serve SERVICE --help" for the flags.
Exit codes: 0 stopped cleanly, 1 a service failed, 2 bad command line.
`)
}

func (c *cli) serviceList(w io.Writer) {
	for _, s := range services {
		fmt.Fprintf(w, "  %-14s port %-5d  %s\n", s.name, s.port, s.summary)
	}
}

// newFlagSet returns a flag set that reports errors on stderr.
func (c *cli) newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	return fs
}

// parseFlags parses args; help goes to stdout. It returns the exit code to
// stop with, or -1 to go on.
func (c *cli) parseFlags(fs *flag.FlagSet, args []string) int {
	if slices.ContainsFunc(args, isHelpFlag) {
		fs.SetOutput(c.stdout)
		fs.Usage()
		return exitOK
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage
	}
	return -1
}

func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

// logFlags declares the logging flags shared by every command.
type logFlags struct{ format, level *string }

func addLogFlags(fs *flag.FlagSet) logFlags {
	return logFlags{
		format: fs.String("log-format", "text", "log format on stderr: text or json"),
		level:  fs.String("log-level", "info", "log level: debug, info, warn or error"),
	}
}

func (l logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(*l.level)); err != nil {
		return nil, usageError{fmt.Errorf("invalid --log-level %q; valid: debug, info, warn, error", *l.level)}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(*l.format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, usageError{fmt.Errorf("invalid --log-format %q; valid: text, json", *l.format)}
	}
}

// fail reports err and returns its exit code.
func (c *cli) fail(prefix string, err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", prefix, err)
	if errors.As(err, new(usageError)) {
		return exitUsage
	}
	return exitError
}
