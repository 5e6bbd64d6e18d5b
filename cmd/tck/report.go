package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/htmlreport"
	"github.com/fortune-tck/fortune-tck/harness/matrix"
)

// runReport renders a run's conformance-report.yaml and cucumber.json as one self-contained HTML page.
func runReport(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck report", flag.ContinueOnError)
	fl.SetOutput(stderr)
	reports := fl.String("reports", "reports", "folder of the run: its conformance-report.yaml and cucumber.json")
	out := fl.String("out", "", "the page to write (default DIR/index.html; - for standard output)")
	featuresDir := fl.String("features", "", "the features the run ran, when not the built-in ones")
	fl.Usage = usageOf(fl, "tck report [--reports DIR] [--out FILE]", "Renders a run's reports (DIR/conformance-report.yaml and DIR/cucumber.json) as one self-contained HTML\n"+
		"page: each profile's result, every scenario with its outcome, steps and evidence (HTTP exchanges,\nscreenshots), failed and blocked first, filters, and the spec sections each scenario earns.")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	if fl.NArg() > 0 {
		fl.Usage()
		return exitUsage
	}
	cat, sections, err := loadSuite(*featuresDir)
	if err != nil {
		fmt.Fprintf(stderr, "tck report: %v\n", err)
		return exitUsage
	}
	in, err := htmlreport.FromFiles(filepath.Join(*reports, "conformance-report.yaml"), filepath.Join(*reports, "cucumber.json"), cat, sections)
	if err != nil {
		fmt.Fprintf(stderr, "tck report: %v\n", err)
		return exitUsage
	}
	path := *out
	if path == "" {
		path = filepath.Join(*reports, "index.html")
	}
	return writePage("tck report", path, stdout, stderr, func(w io.Writer) error { return htmlreport.Render(w, in) })
}

// runDocs renders the features as a browsable spec, with the outcomes of a run when its folder is given.
func runDocs(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("tck docs", flag.ContinueOnError)
	fl.SetOutput(stderr)
	reports := fl.String("report", "", "folder of a run (conformance-report.yaml, cucumber.json) whose outcomes to show")
	out := fl.String("out", filepath.Join("reports", "spec.html"), "the page to write (- for standard output)")
	featuresDir := fl.String("features", "", "read features and sections.yaml from this folder instead of the built-in ones")
	fl.Usage = usageOf(fl, "tck docs [--report DIR] [--out FILE]", "Renders the features as a browsable spec: by area, feature and scenario, with the spec sections and\n"+
		"capabilities each states, each feature's description and the steps; with --report, the latest outcome\nof each scenario.")
	if code, done := parse(fl, args, stdout); done {
		return code
	}
	if fl.NArg() > 0 {
		fl.Usage()
		return exitUsage
	}
	fsys, err := featuresFS(*featuresDir)
	if err != nil {
		fmt.Fprintf(stderr, "tck docs: %v\n", err)
		return exitUsage
	}
	cat, sections, err := loadSuite(*featuresDir)
	if err != nil {
		fmt.Fprintf(stderr, "tck docs: %v\n", err)
		return exitUsage
	}
	var run *htmlreport.Input
	if *reports != "" {
		in, err := htmlreport.FromFiles(filepath.Join(*reports, "conformance-report.yaml"), optional(filepath.Join(*reports, "cucumber.json")), cat, sections)
		if err != nil {
			fmt.Fprintf(stderr, "tck docs: %v\n", err)
			return exitUsage
		}
		run = &in
	}
	docs, err := htmlreport.BuildDocs(fsys, cat, sections, run)
	if err != nil {
		fmt.Fprintf(stderr, "tck docs: %v\n", err)
		return exitUsage
	}
	return writePage("tck docs", *out, stdout, stderr, func(w io.Writer) error { return htmlreport.RenderDocs(w, docs) })
}

// optional is path when the file exists, else "" (none).
func optional(path string) string {
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// loadSuite reads the catalog of the features and the spec's sections.
func loadSuite(dir string) (*catalog.Catalog, []coverage.Section, error) {
	fsys, err := featuresFS(dir)
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalog.Load(fsys)
	if err != nil {
		return nil, nil, err
	}
	sections, err := coverage.LoadSections(fsys, "sections.yaml")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	return cat, sections, nil
}

// writePage renders a page to path (- for stdout) and says where it went and how large it is.
func writePage(cmd, path string, stdout, stderr io.Writer, render func(io.Writer) error) int {
	if path == "-" {
		if err := render(stdout); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return exitRunError
		}
		return exitOK
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitRunError
	}
	f, err := os.Create(path)
	if err == nil {
		err = render(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: writing %s: %v\n", cmd, path, err)
		return exitRunError
	}
	if fi, err := os.Stat(path); err == nil {
		fmt.Fprintf(stdout, "%s (%d KiB)\n", path, (fi.Size()+1023)/1024)
	}
	return exitOK
}

// writeMatrixHTML writes the interop table as a page beside the Markdown tck matrix prints.
func writeMatrixHTML(path string, rows []matrix.Row, stderr io.Writer) int {
	return writePage("tck matrix", path, io.Discard, stderr, func(w io.Writer) error { return matrix.HTML(w, rows) })
}
