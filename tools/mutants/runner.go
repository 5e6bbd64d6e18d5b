package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Outcome is what happened to one mutant.
type Outcome string

// The outcomes. Only Caught is a success; BrokeStartup and CatalogueError are defects of the catalogue (a
// mutant must build and leave the services able to start), Survived is a hole in the suite.
const (
	Caught         Outcome = "caught"
	Survived       Outcome = "survived"
	BrokeStartup   Outcome = "broke start-up"
	CatalogueError Outcome = "catalogue error"
	TimedOut       Outcome = "timeout"
	RunError       Outcome = "error"
)

// Result is the outcome of one mutant: caught when some target caught it.
type Result struct {
	Mutant  Mutant
	Outcome Outcome
	Runs    []TargetRun // one per target that runs the mutant's service, in the order of targets
	Detail  string      // why, for anything but caught and survived
	Seconds float64
}

// TargetRun is the outcome of the suite against one target of one mutant.
type TargetRun struct {
	Target   string
	Outcome  Outcome
	Catching []string // scenarios that failed or were blocked (those the target fails by design left out)
	Detail   string
	Seconds  float64
}

// verdict is a mutant's outcome from its targets': caught by any of them, else the first that did not
// survive explains, else survived.
func verdict(runs []TargetRun) (Outcome, string) {
	if slices.ContainsFunc(runs, func(r TargetRun) bool { return r.Outcome == Caught }) {
		return Caught, ""
	}
	for _, r := range runs {
		if r.Outcome != Survived {
			return r.Outcome, r.Target + ": " + r.Detail
		}
	}
	return Survived, ""
}

// runner holds what every mutant run shares: the checkout, the tck binary built once from it, and the targets
// chosen.
type runner struct {
	root    string
	tmp     string
	tck     string
	timeout time.Duration
	out     io.Writer
	targets []suiteTarget
	mu      sync.Mutex // serializes progress lines
}

// checkout returns the root of the git working tree around the working directory.
func checkout() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", errors.New("not inside a git checkout of fortune-tck: run from the checkout (make mutants)")
	}
	return strings.TrimSpace(string(out)), nil
}

func newRunner(ctx context.Context, root string, timeout time.Duration, chosen []suiteTarget, out io.Writer) (*runner, error) {
	tmp, err := os.MkdirTemp("", "fortune-tck-mutants-")
	if err != nil {
		return nil, err
	}
	r := &runner{root: root, tmp: tmp, tck: filepath.Join(tmp, "tck"), timeout: timeout, out: out, targets: chosen}
	fmt.Fprintf(out, "building tck from %s\n", root)
	if msg, err := goBuild(ctx, root, r.tck, "./cmd/tck"); err != nil {
		r.close()
		return nil, fmt.Errorf("building tck from the working tree failed; fix the build first:\n%s", msg)
	}
	return r, nil
}

func (r *runner) close() { _ = os.RemoveAll(r.tmp) }

// goBuild builds with -trimpath: without it the build cache keys every package by its directory, and each
// scratch copy would recompile the whole module instead of the one mutated package.
func goBuild(ctx context.Context, dir, out, pkg string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = dir
	msg, err := cmd.CombinedOutput()
	return string(msg), err
}

// runMutants runs the mutants, jobs at a time, and returns their results in catalogue order. done is
// called after each mutant with the results so far (nil entries not run yet), so that a long run that is
// stopped keeps what it found.
func (r *runner) runMutants(ctx context.Context, ms []Mutant, jobs int, done func([]Result)) []Result {
	results := make([]Result, len(ms))
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				res := r.runOne(ctx, ms[i])
				r.mu.Lock()
				results[i] = res
				r.mu.Unlock()
				if ctx.Err() != nil {
					continue // interrupted half-way: not a result
				}
				r.progress(i+1, len(ms), res)
				r.mu.Lock()
				done(finished(results))
				r.mu.Unlock()
			}
		})
	}
	for i := range ms {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// finished returns the results that have an outcome, in catalogue order.
func finished(results []Result) []Result {
	var out []Result
	for _, res := range results {
		if res.Outcome != "" && res.Detail != "interrupted" {
			out = append(out, res)
		}
	}
	return out
}

func (r *runner) progress(n, total int, res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := fmt.Sprintf("[%d/%d] %-44s %-15s %5.0fs", n, total, res.Mutant.ID, res.Outcome, res.Seconds)
	switch {
	case res.Outcome == Caught:
		line += "  " + caughtBy(res.Runs, 1)
	case res.Detail != "":
		line += "  " + firstLine(res.Detail)
	}
	fmt.Fprintln(r.out, line)
}

// runOne copies the tree, applies the mutant, builds the reference and runs the suite against it.
func (r *runner) runOne(ctx context.Context, m Mutant) (res Result) {
	start := time.Now()
	res = Result{Mutant: m}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if ctx.Err() != nil {
		res.Outcome, res.Detail = RunError, "interrupted"
		return res
	}
	scratch, err := os.MkdirTemp(r.tmp, m.ID+"-")
	if err != nil {
		res.Outcome, res.Detail = RunError, err.Error()
		return res
	}
	defer os.RemoveAll(scratch)
	tree := filepath.Join(scratch, "tree")
	if err := copyTree(ctx, r.root, tree); err != nil {
		res.Outcome, res.Detail = RunError, err.Error()
		return res
	}
	if err := m.apply(tree); err != nil {
		res.Outcome, res.Detail = CatalogueError, err.Error()
		return res
	}
	bin := filepath.Join(scratch, "reference")
	if msg, err := goBuild(ctx, tree, bin, "./cmd/reference"); err != nil {
		res.Outcome, res.Detail = CatalogueError, "the mutant does not build: "+firstLine(msg)
		return res
	}
	for _, t := range targetsOf(m, r.targets) {
		if ctx.Err() != nil {
			res.Outcome, res.Detail = RunError, "interrupted"
			return res
		}
		res.Runs = append(res.Runs, r.runTarget(ctx, t, scratchRun{tree: tree, bin: bin, dir: filepath.Join(scratch, "target-"+t.name)}))
	}
	switch {
	case ctx.Err() != nil:
		res.Outcome, res.Detail = RunError, "interrupted"
		return res
	case len(res.Runs) == 0:
		res.Outcome, res.Detail = RunError, "no target chosen runs the service "+m.Service
		return res
	}
	res.Outcome, res.Detail = verdict(res.Runs)
	return res
}

// runTarget starts the target (when tck does not start it itself) and runs tck against it.
func (r *runner) runTarget(ctx context.Context, t suiteTarget, s scratchRun) (run TargetRun) {
	start := time.Now()
	run = TargetRun{Target: t.name}
	defer func() { run.Seconds = time.Since(start).Seconds() }()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		run.Outcome, run.Detail = RunError, err.Error()
		return run
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	st := started{env: []string{"TCK_REFERENCE_BIN=" + s.bin}}
	if t.start != nil {
		var err error
		if st, err = t.start(ctx, s); err != nil {
			var se *startError
			run.Outcome, run.Detail = RunError, firstLine(err.Error())
			if errors.As(err, &se) && se.broke {
				run.Outcome = BrokeStartup
			}
			return run
		}
		defer st.stop()
	}
	return r.suite(ctx, t, s, st, run)
}

// suite runs tck against a started target and reads its report.
func (r *runner) suite(ctx context.Context, t suiteTarget, s scratchRun, st started, run TargetRun) TargetRun {
	reports := filepath.Join(s.dir, "reports")
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, r.tck, append([]string{"run", "--reports", reports, "--format", "progress"}, st.args...)...)
	cmd.Dir = s.tree
	cmd.Env = append(os.Environ(), st.env...)
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// tck stops the services it started when interrupted; only if it does not within the delay is it killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		run.Outcome, run.Detail = TimedOut, fmt.Sprintf("the suite ran longer than %s", r.timeout)
	case ctx.Err() != nil:
		run.Outcome, run.Detail = RunError, "interrupted"
	case code == 0:
		run.Outcome = Survived
	case code == 1:
		names, rerr := failedScenarios(filepath.Join(reports, "conformance-report.yaml"), t.expected)
		switch {
		case rerr != nil || len(names) == 0 && t.expected == nil:
			run.Outcome, run.Detail = RunError, fmt.Sprintf("tck exited 1 but its report names no failed scenario (%v): %s", rerr, lastLines(log.String(), 5))
		case len(names) == 0: // only the scenarios the target fails by design
			run.Outcome = Survived
		default:
			run.Outcome, run.Catching = Caught, names
		}
	case code == 3:
		run.Outcome, run.Detail = BrokeStartup, lastLines(log.String(), 3)
	default:
		run.Outcome, run.Detail = RunError, fmt.Sprintf("tck exited %d (%v): %s", code, err, lastLines(log.String(), 5))
	}
	return run
}

// copyTree copies the files git lists in root (tracked and untracked, not ignored) to dst, so that the
// mutant is made from the working tree as it is, uncommitted edits included.
func copyTree(ctx context.Context, root, dst string) error {
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-co", "--exclude-standard", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("listing the files of %s: %w", root, err)
	}
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if err := copyFile(filepath.Join(root, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	info, err := os.Lstat(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil // tracked but deleted in the working tree: the copy is the working tree
	}
	if err != nil || !info.Mode().IsRegular() {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, info.Mode().Perm())
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func firstN(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, "; ")
	}
	return strings.Join(names[:n], "; ") + fmt.Sprintf("; +%d more", len(names)-n)
}
