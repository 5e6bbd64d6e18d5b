package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTick is the unit of /proc/PID/stat's CPU times (USER_HZ, 100 on
// every Linux the project runs on).
const clockTick = 10 * time.Millisecond

// cpuOf is the CPU time, user and system, the process groups of procs have
// used so far: each service with the children it forked (nginx's worker).
// Every service is started in its own group (stack.start). ok is false
// where /proc cannot tell (not Linux): the figure then has no CPU column.
func cpuOf(procs []*proc) (d time.Duration, ok bool) {
	each, ok := cpuEach(procs)
	for _, e := range each {
		d += e
	}
	return d, ok
}

// cpuEach is cpuOf for each of procs apart, in their order: where a
// figure's CPU goes when several processes serve it (the gateway, the
// rate limit service, its Redis).
func cpuEach(procs []*proc) (each []time.Duration, ok bool) {
	if len(procs) == 0 {
		return nil, false
	}
	groups := make(map[int]int, len(procs))
	for i, p := range procs {
		groups[p.cmd.Process.Pid] = i
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return nil, false
	}
	each = make([]time.Duration, len(procs))
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited since the glob
		}
		if pgrp, cpu, ok := parseStat(b); ok {
			if i, in := groups[pgrp]; in {
				each[i] += time.Duration(cpu) * clockTick
			}
		}
	}
	return each, true
}

// parseStat reads a process's group and its user plus system time in
// ticks from /proc/PID/stat. The command name in parentheses may hold
// spaces, so the fields are counted from its closing parenthesis:
// state(3) ppid(4) pgrp(5) ... utime(14) stime(15).
func parseStat(b []byte) (pgrp int, ticks int64, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	g, err1 := strconv.Atoi(string(f[2]))
	u, err2 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err3 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false
	}
	return g, u + s, true
}
