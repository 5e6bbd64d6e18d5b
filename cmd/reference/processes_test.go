package main

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/target"
)

var startedPID = regexp.MustCompile(`started (\S+) \(pid (\d+)\)`)

// up --processes runs every service as a child process and describes them in a target file that the harness's
// ordinary loader accepts; stopping up stops every child.
func TestUpProcessesWritesATargetFileAndStopsItsChildren(t *testing.T) {
	needs.Program(t, "redis-server", "rabbitmq-server")
	t.Setenv(asReferenceEnv, "1") // its children run the test binary as the reference (restart_test.go)
	dir := t.TempDir()
	file := filepath.Join(dir, "target.yaml")
	r := start(t, nil, "up", "--processes", "--data", filepath.Join(dir, "data"), "--target-file", file)
	deadline := time.Now().Add(2 * time.Minute)
	for _, err := os.Stat(file); err != nil; _, err = os.Stat(file) {
		select {
		case code := <-r.done:
			r.done <- code
			t.Fatalf("exited with %d:\n%s%s", code, r.stdout, r.stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no target file:\n%s%s", r.stdout, r.stderr)
		}
	}
	tg, err := target.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := httpGet(t, tg.Services.ConfigServer.URL+"/health"); code != http.StatusOK {
		t.Errorf("configuration server: %d", code)
	}
	if !strings.Contains(tg.Services.ConfigApp.Start, "serve configapp") || len(tg.Services.Gateway.Instances) != 2 ||
		tg.Services.AuthServer.ProvisioningAPI() == nil {
		t.Errorf("target: %+v", tg.Services)
	}
	// The authorization server's lockout and codes have periods short enough for the scenarios to wait out.
	for _, c := range []features.Capability{features.CapAuthLockoutPeriod, features.CapAuthLockoutWindow, features.CapAuthCodeLifetime} {
		if !tg.Has(c) {
			t.Errorf("the target does not declare %s: %+v", c, tg.Services.AuthServer)
		}
	}
	// The refresh bus runs on the stack's own RabbitMQ, which the target names: the bus scenarios watch it.
	if ca := tg.Services.ConfigApp; !strings.Contains(ca.Start, "--bus 'amqp://") || !strings.HasPrefix(ca.Broker, "amqp://") ||
		!tg.Has(features.CapConfigBusSpringWire) {
		t.Errorf("configuration application: %+v", ca)
	} else if conn, err := amqp.Dial(ca.Broker); err != nil {
		t.Errorf("the broker does not answer: %v", err)
	} else {
		conn.Close()
	}
	if code := r.stop(t); code != exitOK {
		t.Errorf("up exited with %d:\n%s", code, r.stderr)
	}
	for _, m := range startedPID.FindAllStringSubmatch(r.stdout.String(), -1) {
		pid, _ := strconv.Atoi(m[2])
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s (pid %d) still runs after up stopped", m[1], pid)
		}
	}
}

func TestUpTargetFileNeedsProcesses(t *testing.T) {
	code, _, stderr := runCLI("up", "--target-file", "x.yaml")
	if code != exitUsage || !strings.Contains(stderr, "go with --processes") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
