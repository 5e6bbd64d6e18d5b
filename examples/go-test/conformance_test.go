// Package impl shows how an implementation written in Go runs the fortune-tck suite from its own go test:
// start the services, then conformance.Run with the target and the expectations file. Here the services are
// the reference implementation, started as an outsider starts it (its binary, reference up --processes, which
// writes a target file once every service answers); an implementation starts its own instead.
package impl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/conformance"
	"github.com/fortune-tck/fortune-tck/target"
)

func TestConformance(t *testing.T) {
	tg := startReference(t)
	// The target in Go: the file the reference wrote, less one capability, to show an expected difference.
	tg.Capabilities = slices.DeleteFunc(tg.Capabilities, func(c features.Capability) bool { return c == features.CapFortuneRFC6750Errors })
	conformance.Run(t, conformance.Options{
		Target:     tg,
		ExpectFile: "expectations.yaml",
		Tags:       "@spec-4.2", // the fortune service's scenarios, to keep go test quick; leave empty for all
		ReportsDir: filepath.Join(t.TempDir(), "reports"),
	})
}

// startReference builds the reference from the fortune-tck module this one requires (or takes the binary
// REFERENCE_BIN names), starts its stack on free ports and returns the target file it writes.
func startReference(t *testing.T) *target.Target {
	t.Helper()
	bin := os.Getenv("REFERENCE_BIN")
	if bin == "" {
		bin = buildReference(t)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "target.yaml")
	cmd := exec.Command(bin, "up", "--processes", "--data", filepath.Join(dir, "data"), "--target-file", file)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan error, 1)
	go func() {
		var log strings.Builder
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "target file ") {
				ready <- nil
				_, _ = io.Copy(io.Discard, out) // keep the pipe drained
				return
			}
		}
		ready <- fmt.Errorf("reference up stopped before writing its target file:\n%s", log.String())
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("reference up wrote no target file within 90 s")
	}
	tg, err := target.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// buildReference compiles cmd/reference from the folder of the fortune-tck module (the replace of go.mod).
func buildReference(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/fortune-tck/fortune-tck").Output()
	if err != nil {
		t.Fatalf("finding the fortune-tck module: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "reference")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/reference")
	build.Dir = strings.TrimSpace(string(dir))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the reference: %v\n%s", err, out)
	}
	return bin
}
