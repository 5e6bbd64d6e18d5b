package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/containers"
	"github.com/fortune-tck/fortune-tck/internal/dockertest"
	"github.com/fortune-tck/fortune-tck/internal/gittest"
	"github.com/fortune-tck/fortune-tck/target"
)

// runLabel gives the containers of the test's runs a label of their own, and removes what a failed test left.
func runLabel(t *testing.T) string {
	id := fmt.Sprintf("tck-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Setenv("TCK_RUN_ID", id)
	label := containers.LabelRun + "=" + id
	t.Cleanup(func() { dockertest.RemoveContainers(t, label) })
	return label
}

// targetYAML is tg as a target file holds it.
func targetYAML(t *testing.T, tg *target.Target) string {
	t.Helper()
	data, err := yaml.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writeTarget writes the target file doc in a temporary folder of its own, and returns its path.
func writeTarget(t *testing.T, doc string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// The authorization server and the configuration server, each given as the reference's image: tck starts
// them, runs the auth and config areas against their mapped addresses, and removes them.
func TestRunAgainstServicesGivenAsContainerImages(t *testing.T) {
	image := dockertest.BuildReference(t)
	label := runLabel(t)
	repo := gittest.BareRepository(t)
	file := writeTarget(t, fmt.Sprintf(`
implementation: {organization: fortune-tck, project: reference images started by tck}
services:
  authServer:
    provisioning: {clientId: admin, clientSecret: adminsecret}
    container:
      image: %[1]s
      # The issuer is the address tck publishes the port on, known before the start; bcrypt's lowest cost,
      # as in the stack tck run boots (the areas hash hundreds of passwords and secrets).
      command: [serve, authserver, --host, 0.0.0.0, --port, "9000", --url, $TCK_URL, --hash-cost, "4"]
      port: 9000
      ready: {http: /healthz}
  configServer:
    repository: {uri: %[2]s}
    container:
      image: %[1]s
      command: [serve, configserver, --host, 0.0.0.0, --port, "8888", --uri, /srv/config.git]
      port: 8888
      files: [{source: %[2]s, target: /srv/config.git, readOnly: true}]
      ready: {http: /health, log: "msg=listening"}
capabilities: [%[3]s]
`, image, repo, strings.Join(knownButProvisioning(), ", ")))
	reports := t.TempDir()
	start := time.Now()
	code, out, errOut := runTCK("run", "--target", file, "--format", "progress", "--reports", reports)
	t.Logf("tck run against two containers: %s", time.Since(start).Round(time.Second))
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, p := range readReport(t, filepath.Join(reports, "conformance-report.yaml")).Profiles {
		if p.Core.Result != "success" {
			t.Errorf("profile %s: %s", p.Name, p.Core.Result)
		}
	}
	if left := dockertest.Containers(t, label); len(left) > 0 {
		t.Errorf("containers left after the run: %v", left)
	}
	for _, log := range []string{"authServer-container.log", "configServer-container.log"} {
		if _, err := os.Stat(filepath.Join(reports, "logs", log)); err != nil {
			t.Errorf("container log not kept: %v", err)
		}
	}
}

func knownButProvisioning() []string {
	return features.Strings(features.DeclarableCapabilities())
}

func TestAnImageThatCannotBePulledIsOneRunError(t *testing.T) {
	dockertest.Require(t)
	label := runLabel(t)
	file := writeTarget(t, `
services:
  configServer:
    repository: {uri: /srv/repo}
    container: {image: "fortune-tck/absent:0", port: 8888}
`)
	code, out, errOut := runTCK("run", "--target", file, "--reports", t.TempDir())
	if code != exitRunError {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitRunError, out, errOut)
	}
	for _, w := range []string{"services.configServer.container", "fortune-tck/absent:0", "not present locally"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("the error does not say %q:\n%s", w, errOut)
		}
	}
	if left := dockertest.Containers(t, label); len(left) > 0 {
		t.Errorf("containers left: %v", left)
	}
}

// Ctrl-C while a container is starting (this one never gets ready: it listens on its loopback only) removes it.
func TestInterruptRemovesTheContainers(t *testing.T) {
	image := dockertest.BuildReference(t)
	label := runLabel(t)
	file := writeTarget(t, fmt.Sprintf(`
services:
  configServer:
    repository: {uri: /srv/repo}
    container:
      image: %s
      command: [serve, quotes, --port, "8081"]
      port: 8081
      ready: {timeout: 10m}
`, image))
	cmd := exec.Command(builtTCK(t), "run", "--target", file, "--reports", t.TempDir())
	cmd.Stdout = os.Stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	go func() {
		for sc.Scan() {
			t.Log(sc.Text())
		}
	}()
	waitForContainer(t, label)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Errorf("exit: %v, want status %d", err, exitInterrupted)
	}
	if left := dockertest.Containers(t, label); len(left) > 0 {
		t.Errorf("containers left after Ctrl-C: %v", left)
	}
}

// waitForContainer returns once a running container carries the label: the start is under way.
func waitForContainer(t *testing.T, label string) {
	t.Helper()
	for range 600 {
		out, _ := exec.Command("docker", "ps", "-q", "--filter", "label="+label, "--filter", "status=running").Output()
		if len(strings.TrimSpace(string(out))) > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no container of the run was running within a minute")
}

// The examples of real implementations' images are not run here (their images cannot be pulled), but they
// must stay valid target files.
func TestTheExampleTargetsAreValid(t *testing.T) {
	// As written, with no variable set: an example file must be valid out of the box (tck validate).
	for _, f := range []string{"../../examples/uaa/target.yaml", "../../examples/spring-cloud-config-server/target.yaml"} {
		tg, err := target.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(tg.Containers()) != 1 {
			t.Errorf("%s: %d services given as containers, want 1", f, len(tg.Containers()))
		}
	}
}
