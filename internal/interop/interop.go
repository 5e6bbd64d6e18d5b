// Package interop runs the suite against the implementations of examples/ that nobody here wrote: each
// example folder with an interop.yaml says how to start the implementation, when it is ready and which target
// file describes it. make interop (tools/interop) and the interop test of make test run them the same way.
package interop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/internal/launch"
)

// Example is one implementation of examples/, as its interop.yaml describes it.
type Example struct {
	// Name is the example's folder, and the folder of its reports under reports/interop.
	Name string `yaml:"-"`
	// Dir is the example's folder.
	Dir string `yaml:"-"`
	// Start is the command that runs the implementation in the foreground until SIGTERM, relative to Dir.
	Start string `yaml:"start"`
	// Ready is a line of the start command's output that says the implementation is ready.
	Ready string `yaml:"ready"`
	// Target is the target file, relative to Dir.
	Target string `yaml:"target"`
	// Timeout bounds the start (default 60s).
	Timeout Duration `yaml:"timeout"`
	// InTest says make test runs it too (its start is quick on a fresh machine after make deps).
	InTest bool `yaml:"inTest"`
	// Concurrency is how many scenarios run at once against it (tck run --concurrency); 0: tck's default.
	// A deployment whose store is for development only may need 1.
	Concurrency int `yaml:"concurrency"`
}

// Duration is a time.Duration written as Go writes one (90s, 2m).
type Duration time.Duration

// UnmarshalYAML reads a duration such as 90s.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: %q is not a positive duration", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Load reads every examples/*/interop.yaml under root, in the order of their names.
func Load(root string) ([]Example, error) {
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "interop.yaml"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []Example
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var e Example
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		e.Dir = filepath.Dir(f)
		e.Name = filepath.Base(e.Dir)
		if e.Start == "" || e.Ready == "" || e.Target == "" {
			return nil, fmt.Errorf("%s: start, ready and target are required", f)
		}
		if e.Timeout == 0 {
			e.Timeout = Duration(60 * time.Second)
		}
		out = append(out, e)
	}
	return out, nil
}

// Result is what one run of the suite against an example gave.
type Result struct {
	// Exit is tck's exit status; Output its terminal output (stdout and stderr).
	Exit   int
	Output string
}

// ExpectationsFile is the name of an example's known differences beside its interop.yaml (tck run --expect).
const ExpectationsFile = "expectations.yaml"

// Expectations is the example's expectations file, "" when it has none.
func (e Example) Expectations() string {
	f := filepath.Join(e.Dir, ExpectationsFile)
	if _, err := os.Stat(f); err != nil {
		return ""
	}
	return f
}

// Run starts the example, runs tck against its target file with the reports in reportsDir, judged against the
// example's expectations file, and stops the example again, also after a failure. Its log is
// reportsDir/logs/<name>.log. A start that fails is an error; a run whose scenarios fail is not: that is the
// Result.
func (e Example) Run(ctx context.Context, tck, reportsDir string) (*Result, error) {
	p, err := e.Launch(ctx, filepath.Join(reportsDir, "logs"))
	if err != nil {
		return nil, err
	}
	defer p.Stop(10 * time.Second)
	return e.Tck(ctx, tck, reportsDir, e.Expectations())
}

// Launch starts the implementation, its log in logs/<name>.log, and waits until it says it is ready; the caller
// stops it.
func (e Example) Launch(ctx context.Context, logs string) (*launch.Process, error) {
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, err
	}
	p, err := launch.Start(e.Name, filepath.Join(logs, e.Name+".log"), nil, filepath.Join(e.Dir, e.Start))
	if err != nil {
		return nil, err
	}
	if err := p.WaitOutput(ctx, e.Ready, time.Duration(e.Timeout)); err != nil {
		p.Stop(10 * time.Second)
		return nil, fmt.Errorf("starting %s: %w", e.Name, err)
	}
	return p, nil
}

// Tck runs tck against the started example's target file with the reports in reportsDir, judged against the
// expectations file expect ("" for none).
func (e Example) Tck(ctx context.Context, tck, reportsDir, expect string) (*Result, error) {
	args := []string{"run", "--target", filepath.Join(e.Dir, e.Target), "--reports", reportsDir, "--format", "progress"}
	if e.Concurrency > 0 {
		args = append(args, "--concurrency", strconv.Itoa(e.Concurrency))
	}
	if expect != "" {
		args = append(args, "--expect", expect)
	}
	cmd := exec.CommandContext(ctx, tck, args...)
	out, err := cmd.CombinedOutput()
	res := &Result{Output: string(out)}
	if exit, ok := err.(*exec.ExitError); ok {
		res.Exit = exit.ExitCode()
	} else if err != nil {
		return nil, fmt.Errorf("running tck against %s: %w", e.Name, err)
	}
	return res, nil
}
