// Command interop runs the suite against every implementation of examples/ that has an interop.yaml (make
// interop): it starts each one, runs tck against its target file judged against the example's expectations
// file, keeps the reports in reports/interop/<name>/ with that file (which says why each difference is one),
// and writes the table of them (reports/interop/README.md, committed, and the page reports/interop/index.html,
// which git ignores as it ignores each run's index.html). It exits 1 when an implementation could not be run,
// or when a difference has no entry or an entry explains nothing.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fortune-tck/fortune-tck/harness/matrix"
	"github.com/fortune-tck/fortune-tck/internal/interop"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("interop", flag.ContinueOnError)
	fl.SetOutput(stderr)
	only := fl.String("only", "", "run only these examples (comma-separated folder names); the others' committed reports stay in the table")
	out := fl.String("reports", filepath.Join("reports", "interop"), "folder of the reports, one folder per implementation")
	fl.Usage = func() {
		fmt.Fprintf(fl.Output(), "Usage: go run ./tools/interop [--only NAME,NAME] [--reports DIR]\n\n"+
			"Starts each implementation of examples/*/interop.yaml, runs the suite against it, keeps its reports in\n"+
			"DIR/<name>/ and writes the interop table to DIR/README.md and DIR/index.html.\n\nFlags:\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	examples, err := interop.Load(".")
	if err != nil {
		fmt.Fprintf(stderr, "interop: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tck := filepath.Join(os.TempDir(), fmt.Sprintf("fortune-tck-interop-%d", os.Getpid()))
	if out, err := exec.Command("go", "build", "-o", tck, "./cmd/tck").CombinedOutput(); err != nil {
		fmt.Fprintf(stderr, "interop: building tck: %v\n%s", err, out)
		return 1
	}
	defer os.Remove(tck)

	status := 0
	for _, e := range examples {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), e.Name) {
			continue
		}
		if err := runOne(ctx, e, tck, filepath.Join(*out, e.Name), stdout); err != nil {
			fmt.Fprintf(stderr, "interop: %s: %v\n", e.Name, err)
			status = 1
		}
	}
	if ctx.Err() != nil {
		return 130
	}
	if err := writeTable(examples, *out, stdout); err != nil {
		fmt.Fprintf(stderr, "interop: %v\n", err)
		status = 1
	}
	return status
}

// runOne runs the suite against one example into a fresh reports folder and puts the example's notes beside
// its report.
func runOne(ctx context.Context, e interop.Example, tck, dir string, stdout io.Writer) error {
	fmt.Fprintf(stdout, "== %s: starting %s\n", e.Name, filepath.Join(e.Dir, e.Start))
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	res, err := e.Run(ctx, tck, dir)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, summary(res.Output))
	if res.Exit != 0 && res.Exit != 1 {
		return fmt.Errorf("tck exited %d (the run could not be done):\n%s", res.Exit, res.Output)
	}
	notes, err := os.ReadFile(filepath.Join(e.Dir, matrix.NotesFile))
	if err != nil {
		return fmt.Errorf("%s: %w (every implementation says why it differs where it does)", matrix.NotesFile, err)
	}
	return os.WriteFile(filepath.Join(dir, matrix.NotesFile), notes, 0o644)
}

// summary is tck's closing summary: from its "Conformance of" line on.
func summary(output string) string {
	if i := strings.Index(output, "Conformance of"); i >= 0 {
		return strings.TrimSpace(output[i:])
	}
	return strings.TrimSpace(output)
}

// writeTable renders every example's report (this run's or the committed one) as the interop table.
func writeTable(examples []interop.Example, out string, stdout io.Writer) error {
	var rows []matrix.Row
	var problems []string
	for _, e := range examples {
		r, err := matrix.Load(filepath.Join(out, e.Name))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if err := r.Check(); err != nil {
			problems = append(problems, err.Error())
		}
		rows = append(rows, r)
	}
	table := matrix.Markdown(rows)
	if err := os.WriteFile(filepath.Join(out, "README.md"), []byte(page(table)), 0o644); err != nil {
		return err
	}
	var html bytes.Buffer
	if err := matrix.HTML(&html, rows); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "index.html"), html.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, "\n"+table)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

// page is reports/interop/README.md: the table, and what each folder holds.
func page(table string) string {
	return "# Interoperability\n\nWritten by `make interop` (tools/interop): the suite against each implementation of `examples/`.\n" +
		"Each folder holds its conformance report, its JUnit and cucumber files, and `expectations.yaml`: why each\n" +
		"difference is one (the file `tck run --expect` takes). The HTML pages are not committed: `make interop`\n" +
		"writes them (`index.html` here and in each folder), and `go run ./cmd/tck report --reports\n" +
		"reports/interop/NAME` writes one from the committed files.\n\n" +
		table
}
