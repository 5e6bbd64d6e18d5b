package launch

import (
	"github.com/fortune-tck/fortune-tck/internal/freeport"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOutputIsKeptAndStopEndsTheWholeGroup(t *testing.T) {
	log := filepath.Join(t.TempDir(), "p.log")
	// The shell starts a child; Stop must end both.
	p, err := Shell("sleeper", log, []string{"GREETING=hello"}, `echo "$GREETING from the shell"; sleep 60 & echo child $!; wait`)
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, line := range strings.Split(p.Output(), "\n") {
			if n, ok := strings.CutPrefix(line, "child "); ok {
				child = atoi(n)
			}
		}
	}
	if !strings.Contains(p.Output(), "hello from the shell") || child == 0 {
		t.Fatalf("output: %q", p.Output())
	}
	p.Stop(2 * time.Second)
	if !p.Exited() {
		t.Error("the shell still runs")
	}
	for deadline := time.Now().Add(2 * time.Second); alive(child) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(child) {
		t.Errorf("the child %d survived Stop", child)
	}
}

// alive reports whether a process runs; a zombie (ended, not yet reaped by init) does not.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

func TestWaitReportsAnEarlyExitWithItsOutput(t *testing.T) {
	p, err := Shell("failing", filepath.Join(t.TempDir(), "p.log"), nil, `echo "cannot bind"; exit 3`)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	port := freeport.Get(t)
	err = p.WaitTCP(context.Background(), "127.0.0.1:"+itoa(port), 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "failing exited at start") || !strings.Contains(err.Error(), "cannot bind") {
		t.Errorf("err = %v", err)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		n = n*10 + int(c-'0')
	}
	return n
}

func itoa(n int) string { return fmt.Sprint(n) }

func TestWaitFileReturnsTheLineOnceWhole(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	// The first write has no newline yet: not ready.
	p, err := Shell("writer", filepath.Join(dir, "p.log"), []string{"READY=" + ready},
		`printf 'http://127.0.0.1:' > "$READY"; sleep 0.3; printf 'http://127.0.0.1:4242\n' > "$READY.tmp"; mv "$READY.tmp" "$READY"; sleep 60`)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	got, err := p.WaitFile(context.Background(), ready, 5*time.Second)
	if err != nil || got != "http://127.0.0.1:4242" {
		t.Fatalf("WaitFile = %q, %v", got, err)
	}

	q, err := Shell("quitter", filepath.Join(dir, "q.log"), nil, `echo "bad flag"; exit 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(time.Second)
	if _, err := q.WaitFile(context.Background(), filepath.Join(dir, "never"), 5*time.Second); err == nil ||
		!strings.Contains(err.Error(), "exited at start") || !strings.Contains(err.Error(), "bad flag") {
		t.Fatalf("err = %v", err)
	}
}

// A child stays in the caller's process group, so that a signal to that group reaches it, and Stop ends it
// alone; WaitPath sees a file once it exists.
func TestAChildStaysInTheCallersGroup(t *testing.T) {
	dir := t.TempDir()
	p, err := Child("sleeper", filepath.Join(dir, "c.log"), nil, "/bin/sh", "-c", "touch "+dir+"/here; exec sleep 60")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitPath(context.Background(), filepath.Join(dir, "here"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if pgid, err := syscall.Getpgid(p.PID()); err != nil || pgid != syscall.Getpgrp() {
		t.Errorf("child's group %d (%v), the caller's %d", pgid, err, syscall.Getpgrp())
	}
	p.Stop(2 * time.Second)
	if !p.Exited() || p.Err() == nil {
		t.Errorf("the child still runs, or ended without the signal: %v", p.Err())
	}
}
