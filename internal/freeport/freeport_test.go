package freeport

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestTheReturnedPortCanBeBound(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(Get(t)))
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// The kernel hands out ports of its ephemeral range to outgoing connections at any moment: a port from there
// could be gone before its user binds it.
func TestPortsAreBelowTheKernelsEphemeralRange(t *testing.T) {
	hi := highest()
	seen := map[int]bool{}
	for range 50 {
		p := Get(t)
		if p < lowest || p > hi {
			t.Fatalf("port %d is outside %d-%d", p, lowest, hi)
		}
		seen[p] = true
	}
	if len(seen) != 50 {
		t.Fatalf("50 picks gave %d distinct ports", len(seen))
	}
}

// A program picks the ports of its children before it starts them: none may be given twice, even where the
// range is small and every port in it is free.
func TestAProcessIsNeverGivenAPortTwice(t *testing.T) {
	defer func(f string) { rangeFile = f }(rangeFile)
	rangeFile = filepath.Join(t.TempDir(), "range")
	if err := os.WriteFile(rangeFile, []byte(strconv.Itoa(lowest+20)+" 60999"), 0o600); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for range 200 {
		p := Get(t)
		if seen[p] {
			t.Fatalf("port %d given twice", p)
		}
		seen[p] = true
	}
}

func TestTheRangeFileDecidesTheHighestPort(t *testing.T) {
	defer func(f string) { rangeFile = f }(rangeFile)
	dir := t.TempDir()
	for content, want := range map[string]int{
		"32768\t60999\n": 32767,
		"40000 50000":    39999,
		"1024 65535":     1023,
		"garbage":        32767,
	} {
		rangeFile = filepath.Join(dir, "range")
		if err := os.WriteFile(rangeFile, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := highest(); got != want {
			t.Errorf("range %q: highest %d, want %d", content, got, want)
		}
	}
	rangeFile = filepath.Join(dir, "absent")
	if got := highest(); got != 32767 {
		t.Errorf("no range file: highest %d, want 32767", got)
	}
}

// Where the kernel's range starts too low to leave room, the kernel picks.
func TestAKernelRangeStartingLowLeavesThePickToTheKernel(t *testing.T) {
	defer func(f string) { rangeFile = f }(rangeFile)
	rangeFile = filepath.Join(t.TempDir(), "range")
	if err := os.WriteFile(rangeFile, []byte("1024 65535"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := Get(t); p < 1024 {
		t.Fatalf("port %d", p)
	}
}
