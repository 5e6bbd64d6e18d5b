// Package dockertest gives tests a Docker daemon and the images they run, built locally: no image registry is
// reachable where this project's CI runs, so every image comes from the base image scripts/docker-deps.sh makes
// with debootstrap (BaseImage), from the reference binary built from this checkout on an empty root
// (StaticImage), and from Debian's packages.
//
// Without Docker a test skips with a message naming what to install, on a developer's machine; when the
// environment variable CI is set (.ci/run sets it) it fails instead, so that missing coverage cannot pass
// unnoticed. Under go test -short (the fast tier) it is skipped, as package needs says.
package dockertest

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/needs"
)

// Images built for tests. The reference's tag is its own, so a test never runs a stale image someone built
// from another checkout under the usual name.
var (
	BaseImage      = cmp.Or(os.Getenv("FORTUNE_TCK_BASE_IMAGE"), "fortune-tck/base:local")
	ReferenceImage = "fortune-tck/reference:test"
	RedisImage     = "fortune-tck/redis:local"
	// StaticImage is the reference's base: what distroless's static image gives a static binary, an empty root
	// but /tmp. On Docker's vfs storage driver every container start copies its image's files; on BaseImage
	// (some 6,700 files) a reference container took 8-30 s to start under load, on this one under a second.
	StaticImage = "fortune-tck/static:local"
)

const missing = "the container tests need a running Docker daemon and the base image %s: run `make deps` as root " +
	"(it installs Debian's docker.io, docker-compose and debootstrap, starts dockerd and builds the base image)"

// Require stops the test unless Docker answers and the base image is present: a skip on a developer's
// machine, a failure in CI.
func Require(tb testing.TB) {
	tb.Helper()
	needs.Program(tb, "docker")
	if err := available(); err != nil {
		msg := fmt.Sprintf(missing+": %v", BaseImage, err)
		if os.Getenv("CI") != "" {
			tb.Fatal(msg + " (CI is set: these tests may not be skipped)")
		}
		tb.Skip(msg)
	}
}

func available() error {
	if _, err := exec.LookPath("docker"); err != nil {
		return errors.New("no docker command")
	}
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return fmt.Errorf("docker info: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("docker", "image", "inspect", BaseImage).CombinedOutput(); err != nil {
		return fmt.Errorf("no image %s: %s", BaseImage, strings.TrimSpace(string(out)))
	}
	return nil
}

var (
	refOnce sync.Once
	refErr  error
)

// BuildReference builds ReferenceImage from the checkout's Dockerfile (its local target) with the reference
// binary compiled here, outside Docker, so the build needs no Go image and no module proxy. Unchanged sources
// give the same binary and so a cached layer. Once per test binary.
func BuildReference(tb testing.TB) string {
	tb.Helper()
	Require(tb)
	refOnce.Do(func() { refErr = buildReference() })
	if refErr != nil {
		tb.Fatal(refErr)
	}
	return ReferenceImage
}

func buildReference() error {
	root, err := Checkout()
	if err != nil {
		return err
	}
	ctx, err := os.MkdirTemp("", "fortune-tck-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ctx)
	start := time.Now()
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(ctx, "build", "reference"), "./cmd/reference")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the static reference binary: %v\n%s", err, out)
	}
	for _, f := range []string{"Dockerfile", ".dockerignore", "docker/data/README.md"} {
		if err := copyFile(filepath.Join(root, f), filepath.Join(ctx, f)); err != nil {
			return err
		}
	}
	binary := time.Since(start)
	if err := buildStatic(root); err != nil {
		return err
	}
	if err := docker("build", "-q", "--target", "local", "--build-arg", "BASE="+StaticImage, "-t", ReferenceImage, ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "dockertest: %s built (binary %s, image %s)\n", ReferenceImage,
		binary.Round(time.Second), (time.Since(start) - binary).Round(time.Second))
	return nil
}

// buildStatic builds StaticImage unless present, with the script make compose-up uses.
func buildStatic(root string) error {
	build := exec.Command(filepath.Join(root, "scripts", "static-image.sh"))
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/static-image.sh: %v\n%s", err, out)
	}
	return nil
}

var (
	redisOnce sync.Once
	redisErr  error
)

// BuildRedis builds RedisImage from docker/redis (Debian's redis-server on the base image) unless present.
func BuildRedis(tb testing.TB) string {
	tb.Helper()
	Require(tb)
	redisOnce.Do(func() {
		if exec.Command("docker", "image", "inspect", RedisImage).Run() == nil {
			return
		}
		root, err := Checkout()
		if err != nil {
			redisErr = err
			return
		}
		redisErr = docker("build", "-q", "--build-arg", "BASE="+BaseImage, "-t", RedisImage, filepath.Join(root, "docker", "redis"))
	})
	if redisErr != nil {
		tb.Fatal(redisErr)
	}
	return RedisImage
}

func docker(args ...string) error {
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// Checkout is the root of the checkout the test runs in (the folder of go.mod).
func Checkout() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the fortune-tck module")
	}
	return filepath.Dir(mod), nil
}

// Containers lists the ids of the containers, running or not, that carry the label (key=value).
func Containers(tb testing.TB, label string) []string {
	tb.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+label).Output()
	if err != nil {
		tb.Fatalf("docker ps: %v", err)
	}
	return strings.Fields(string(out))
}

// RemoveContainers removes the containers that carry the label, for a test's cleanup.
func RemoveContainers(tb testing.TB, label string) {
	tb.Helper()
	if ids := Containers(tb, label); len(ids) > 0 {
		_ = exec.Command("docker", append([]string{"rm", "-f"}, ids...)...).Run()
	}
}
