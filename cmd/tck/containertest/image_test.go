package containertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/internal/dockertest"
)

// tckImage is the image the test builds from the Dockerfile's tck target; its own tag, so that no image built
// from another checkout under the usual name is run.
const tckImage = "fortune-tck/tck:test"

// exitUsage is tck's exit status for bad usage (cmd/tck).
const exitUsage = 2

// buildTCKImage builds the tck target as docker build does it here (the legacy builder, which builds the
// stages before it: BASE and build/reference for them), on the base image made from Debian's packages.
func buildTCKImage(t *testing.T) {
	t.Helper()
	dockertest.Require(t)
	root, err := boot.Checkout()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.TempDir()
	for _, f := range []string{"Dockerfile", ".dockerignore", "docker/data/README.md"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ctx, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctx, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"tck", "reference"} {
		build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(ctx, "build", cmd), "./cmd/"+cmd)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", cmd, err, out)
		}
	}
	start := time.Now()
	// The first build installs Chromium from Debian's packages (minutes); later ones take that layer from the cache.
	out, err := exec.Command("docker", "build", "-q", "--target", "tck", "--build-arg", "BASE="+dockertest.BaseImage,
		"--build-arg", "DEBIAN="+dockertest.BaseImage, "-t", tckImage, ctx).CombinedOutput()
	if err != nil {
		t.Fatalf("docker build --target tck: %v\n%s", err, out)
	}
	t.Logf("%s built in %s", tckImage, time.Since(start).Round(time.Second))
}

// dockerRun runs the image with the arguments given and returns its exit status and output.
func dockerRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command("docker", append([]string{"run", "--rm", "--network", "host"}, args...)...).CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// The image runs the suite, Chromium included, against the reference started on the host (--network host),
// as the user who runs it: the reports are that user's. A reports folder the image cannot write is one error
// that says how to run it.
func TestTheImageRunsTheSuiteAsItsCaller(t *testing.T) {
	t.Parallel() // beside the compose test: both wait mostly on Docker (compose_test.go)
	buildTCKImage(t)
	st, err := boot.Reference(context.Background(), boot.Options{LogDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Stop()
	// The target of the authorization server, the fortune service and the greeting client: those need nothing
	// of the host but its ports.
	tg := *st.Target
	tg.Services.Gateway, tg.Services.ConfigServer, tg.Services.ConfigApp = nil, nil, nil
	data, err := yaml.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	const caller = 12345 // someone other than the image's own user (65532) and than root
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "target.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, caller, caller); err != nil {
		t.Fatalf("the test needs to give its folder to another user (run as root, as make test does here): %v", err)
	}
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	user := fmt.Sprintf("%d:%d", caller, caller)
	code, out := dockerRun(t, "--user", user, "-v", work+":"+work, tckImage,
		"run", "--target", filepath.Join(work, "target.yaml"), "--reports", filepath.Join(work, "reports"), "--tags", "@spec-4.2,@browser")
	if code != 0 {
		t.Fatalf("the image's run: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "passed") || !strings.Contains(out, "greeting/greeting/") || !strings.Contains(out, "0 failed, 0 blocked") {
		t.Errorf("the run did not pass the browser scenario and the fortune service's:\n%s", out)
	}
	for _, f := range []string{"junit.xml", "cucumber.json", "conformance-report.yaml", "index.html", "summary.md", "badge.svg"} {
		fi, err := os.Stat(filepath.Join(work, "reports", f))
		if err != nil {
			t.Errorf("the image wrote no %s: %v", f, err)
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != caller {
			t.Errorf("%s belongs to uid %d, want the caller's %d", f, fi.Sys().(*syscall.Stat_t).Uid, caller)
		}
	}

	// Without --user the image runs as its own user, who may not write the caller's folder.
	locked := filepath.Join(work, "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	code, out = dockerRun(t, "-v", work+":"+work, tckImage, "run", "--target", filepath.Join(work, "target.yaml"),
		"--reports", filepath.Join(locked, "reports"))
	want := "tck run: --reports: mkdir " + filepath.Join(locked, "reports") + ": permission denied\n" +
		"Give a folder tck can write: in the image fortune-tck/tck tck runs as uid 65532, which cannot write " + filepath.Join(locked, "reports") +
		". Run the image as the owner of the mounted folder (docker run --user \"$(id -u):$(id -g)\" ...), so that the reports are yours too.\n"
	if code != exitUsage || out != want {
		t.Errorf("an unwritable reports folder: exit %d\n%s\nwant exit 2 and\n%s", code, out, want)
	}
}
