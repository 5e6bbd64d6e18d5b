package main

import "runtime"

func cpus() int { return runtime.NumCPU() }
