package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

func secretsOf(values ...string) *core.Secrets {
	s := core.NewSecrets(&target.Target{})
	s.Add(values...)
	return s
}

// The terminal masks a secret even when it comes in pieces, escapes the target's control characters and keeps
// the colours of the harness's own lines.
func TestTheTerminalMasksAndEscapes(t *testing.T) {
	var out strings.Builder
	term := newTerminal(&out, cleaner{secretsOf("s3cr3t-value")})
	for _, piece := range []string{"  \x1b[31mfailed\x1b[0m  the pass", "word is s3cr", "3t-value\x1b]0;pwned\x07\x1b[2J\r\n", "no newline s3cr3t-value"} {
		if _, err := term.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	if err := term.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "  \x1b[31mfailed\x1b[0m  the password is ***\\x1b]0;pwned\\x07\\x1b[2J\\x0d\nno newline ***"
	if out.String() != want {
		t.Errorf("the terminal shows\n%q\nwant\n%q", out.String(), want)
	}
	// A line without end goes out in pieces, the secret cut between two writes masked all the same.
	out.Reset()
	long := strings.Repeat("x", maxLine+100) + "s3cr3t-value" + strings.Repeat("y", 10)
	for i := 0; i < len(long); i += 4096 {
		_, _ = term.Write([]byte(long[i:min(len(long), i+4096)]))
	}
	_ = term.Flush()
	if strings.Contains(out.String(), "s3cr3t") || !strings.Contains(out.String(), "x***y") {
		t.Errorf("a long line shows the secret or lost it: ...%s", out.String()[maxLine:])
	}
}

// Every report file of the folder is masked in place; a file that is not there is none of the run's.
func TestMaskReportsMasksEveryReportFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"junit.xml", "cucumber.json", "index.html"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("before s3cr3t-value after, and as HTML: s3cr3t&amp;&lt;x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := maskReports(dir, secretsOf("s3cr3t-value", "s3cr3t&<x")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"junit.xml", "cucumber.json", "index.html"} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if string(data) != "before *** after, and as HTML: ***" {
			t.Errorf("%s is %q", name, data)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "conformance-report.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a report that was not there was written: %v", err)
	}
}

// A run error is cleaned, and still what it was for errors.Is.
func TestARunErrorIsCleanedAndKeepsItsKind(t *testing.T) {
	err := cleaner{secretsOf("s3cr3t-value")}.error(errors.Join(ErrSetup, errors.New("page says s3cr3t-value\x1b[2J")))
	if !errors.Is(err, ErrSetup) || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("err = %q", err)
	}
}

// A run out of time names what it was waiting for; a run that ended first is not a timeout.
func TestARunOutOfTimeSaysWhatItWaitedFor(t *testing.T) {
	e := &TimeoutError{Waiting: []string{"GET http://t/authorize (for 3s)"}, Running: []string{"auth/x"}}
	if !errors.Is(e, ErrTimeout) || !strings.Contains(e.Error(), "still waiting for:\n  GET http://t/authorize (for 3s)") ||
		!strings.Contains(e.Error(), "Scenarios under way: auth/x") {
		t.Errorf("%v", e)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Nanosecond, ErrTimeout)
	defer cancel()
	<-ctx.Done()
	if err := stopped(ctx, nil, &underway{m: map[string]string{}}, nil); err != nil {
		t.Errorf("a run without error became %v", err)
	}
}

// An access log is read from its end, at most maxAccessLog of it, from the start of a line.
func TestAccessLogsAreReadFromTheirEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.log")
	line := strings.Repeat("a", 99) + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 1000)+"last\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := readTail(path, 1050)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "aaa") || !strings.HasSuffix(string(data), line+"last\n") || len(data) > 1050 {
		t.Errorf("read %d bytes: %.20q...", len(data), data)
	}
}

// The removals after a stopped run go on when its context ends, and stop at once when a second Ctrl-C
// hurries them.
func TestTheCleanupOutlivesTheRunUntilHurried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	hurry := make(chan struct{})
	cctx, stop := cleanupContext(ctx, hurry)
	defer stop()
	if cctx.Err() != nil {
		t.Fatal("the cleanup's context ended with the run's")
	}
	close(hurry)
	select {
	case <-cctx.Done():
	case <-time.After(time.Second):
		t.Fatal("a hurried cleanup goes on")
	}
}
