package main

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The group and the CPU ticks are read after the command's name, which may
// hold spaces and parentheses.
func TestParseStat(t *testing.T) {
	line := "4242 (a (b) c) S 1 4242 4242 0 -1 4194304 99 0 0 0 7 5 0 0 20 0 1 0 2152868 3133440 382\n"
	pgrp, ticks, ok := parseStat([]byte(line))
	if !ok || pgrp != 4242 || ticks != 12 {
		t.Fatalf("parseStat = %d, %d, %v; want 4242, 12, true", pgrp, ticks, ok)
	}
	for _, bad := range []string{"", "4242 (x", "4242 (x) S 1", "4242 (x) S 1 g 4242 0 -1 0 0 0 0 0 7 5"} {
		if _, _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}

// A busy child's CPU shows in cpuOf, counted by its process group.
func TestCPUOfCountsAGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	p := &proc{name: "busy", cmd: cmd}
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, ok := cpuOf([]*proc{p})
		if !ok {
			t.Fatal("cpuOf could not read /proc")
		}
		if d >= 5*clockTick {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a busy loop used %v of CPU in 20 s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
