package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/dockertest"
)

// The ports docker-compose.yml publishes on 127.0.0.1, besides Redis's (which the test moves to a free one).
var composePorts = []int{9000, 8787, 8100, 8888, 8080, 8082, 8081, 10080, 10443, 10082, 10445}

// The whole suite against the stack of docker-compose.yml, built from this checkout, with every Compose
// implementation installed (Compose v2, the docker CLI plugin, and Debian's docker-compose 1.29), described in
// a target file as a third party would describe a deployment of theirs.
func TestTheWholeSuiteAgainstTheComposeStack(t *testing.T) {
	dockertest.Require(t)
	tools := composeTools()
	if len(tools) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no Compose: install Debian's docker-compose (make deps as root)")
		}
		t.Skip("no Compose: install Debian's docker-compose (make deps as root)")
	}
	image := dockertest.BuildReference(t)
	redis := dockertest.BuildRedis(t)
	for _, tool := range tools {
		t.Run(strings.Join(tool, " "), func(t *testing.T) { runAgainstCompose(t, tool, image, redis) })
	}
}

// composeTools are the Compose commands that work here.
func composeTools() [][]string {
	var out [][]string
	for _, tool := range [][]string{{"docker", "compose"}, {"docker-compose"}} {
		if exec.Command(tool[0], append(tool[1:], "version")...).Run() == nil {
			out = append(out, tool)
		}
	}
	return out
}

func runAgainstCompose(t *testing.T, tool []string, image, redis string) {
	for _, p := range composePorts {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("docker-compose.yml publishes the spec's ports, and %d is taken here: %v", p, err)
		}
		l.Close()
	}
	root, err := dockertest.Checkout()
	if err != nil {
		t.Fatal(err)
	}
	project := fmt.Sprintf("fortunetck%d", time.Now().UnixNano()%1e9)
	redisPort := freePorts(t, 1)[0]
	compose := func(args ...string) (string, error) {
		cmd := exec.Command(tool[0], append(append(tool[1:], "-p", project, "-f", filepath.Join(root, "docker-compose.yml")), args...)...)
		cmd.Env = append(os.Environ(), "FORTUNE_TCK_IMAGE="+image, "FORTUNE_TCK_REDIS_IMAGE="+redis,
			"FORTUNE_TCK_REDIS_PORT="+strconv.Itoa(redisPort))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	label := "fortune-tck.test=" + project
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := compose("logs", "--no-color", "--tail", "30")
			t.Log(out)
		}
		if out, err := compose("down", "-v", "--remove-orphans"); err != nil {
			t.Errorf("compose down: %v\n%s", err, out)
		}
		dockertest.RemoveContainers(t, label)
	})
	start := time.Now()
	if out, err := compose("up", "-d"); err != nil {
		t.Fatalf("compose up: %v\n%s", err, out)
	}
	services, err := compose("config", "--services")
	if err != nil {
		t.Fatalf("compose config: %v\n%s", err, services)
	}
	waitHealthy(t, project, len(strings.Fields(services)))
	t.Logf("%s up -d, every service healthy: %s", strings.Join(tool, " "), time.Since(start).Round(time.Second))

	file := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(file, []byte(composeTarget(t, project, image, label, redisPort)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The configuration repository lives in a Docker volume owned by the containers' user, with master checked
	// out; the harness reaches a local repository through git's own upload-pack and receive-pack, which read
	// another user's repository, and move a checked-out branch, only when told to.
	gitConfig := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(gitConfig, []byte("[safe]\n\tdirectory = *\n[receive]\n\tdenyCurrentBranch = ignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", gitConfig)
	reports := t.TempDir()
	start = time.Now()
	code, out, errOut := runTCK("run", "--target", file, "--format", "progress", "--reports", reports)
	t.Logf("tck run against the compose stack: %s", time.Since(start).Round(time.Second))
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, p := range readReport(t, filepath.Join(reports, "conformance-report.yaml")).Profiles {
		if p.Core.Result != "success" || (p.Extended != nil && p.Extended.Result.Result != "success") {
			t.Errorf("profile %s: %+v", p.Name, p)
		}
	}
}

// waitHealthy waits until the n containers of the project report healthy (Redis has no health check: running).
func waitHealthy(t *testing.T, project string, n int) {
	t.Helper()
	var last string
	for range 600 {
		out, err := exec.Command("docker", "ps", "-a", "--filter", "label=com.docker.compose.project="+project,
			"--format", `{{.Label "com.docker.compose.service"}}: {{.Status}}`).Output()
		if err != nil {
			t.Fatal(err)
		}
		last = strings.TrimSpace(string(out))
		lines := strings.Split(last, "\n")
		healthy := len(lines) == n
		for _, l := range lines {
			if strings.HasPrefix(l, "redis:") {
				healthy = healthy && strings.Contains(l, "Up")
				continue
			}
			healthy = healthy && strings.Contains(l, "(healthy)")
			if strings.Contains(l, "Exited") {
				t.Fatalf("a service of the stack stopped:\n%s", last)
			}
		}
		if healthy {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("the stack was not healthy within 5 minutes:\n%s", last)
}

// composeTarget describes the running stack. Scenarios reach the services on the published ports; the
// harness pushes to the configuration repository and reads the access logs in the named volume (as root, on
// this host); it writes gateway manifests there readable by the gateway's user; the gateway reaches the
// harness's upstream at the host's address on the stack's network; configuration app instances are containers
// of the same image on the host's network, joining the stack's bus through the published Redis port.
func composeTarget(t *testing.T, project, image, label string, redisPort int) string {
	volume := inspect(t, "volume", project+"_data", "{{.Mountpoint}}")
	hostIP := inspect(t, "network", project+"_default", "{{(index .IPAM.Config 0).Gateway}}")
	manifests := filepath.Join(volume, "gateway")
	return fmt.Sprintf(`
implementation: {organization: fortune-tck, project: fortune-tck reference (docker-compose.yml)}
services:
  authServer:
    url: http://localhost:9000
    provisioning: {clientId: admin, clientSecret: adminsecret}
  fortune: {url: http://localhost:8787}
  greeting: {url: http://localhost:8100}
  configServer:
    url: http://localhost:8888
    # The harness pushes with go-git's in-process file transport, which takes a non-bare repository's
    # folder for its git directory: name the .git folder of the demo repository (it serves it).
    repository: {uri: %[1]s/config-repo/.git}
  configApp:
    start: >-
      exec docker run --rm --network host --label %[2]s -e TCK_PROFILES -e SPRING_PROFILES_ACTIVE %[3]s
      serve configapp --port "$TCK_PORT" --name "$TCK_APP_NAME" --config-url "$TCK_CONFIG_URL"
      --redis redis://127.0.0.1:%[4]d/0
    startTimeout: 90s
  gateway:
    gatewayName: eg
    instances:
      - {http: http://127.0.0.1:10080, https: https://127.0.0.1:10443}
      - {http: http://127.0.0.1:10082, https: https://127.0.0.1:10445}
    apply: >-
      install -m 0644 "$TCK_MANIFEST" "%[5]s/.$TCK_MANIFEST_NAME.tmp" &&
      mv "%[5]s/.$TCK_MANIFEST_NAME.tmp" "%[5]s/$TCK_MANIFEST_NAME.yaml"
    accessLogs: [%[1]s/gateway-access.log, %[1]s/gateway-2-access.log]
    harnessHost: %[6]s
capabilities: [%[7]s]
`, volume, label, image, redisPort, manifests, hostIP, strings.Join(knownButProvisioning(), ", "))
}

func inspect(t *testing.T, kind, name, format string) string {
	t.Helper()
	out, err := exec.Command("docker", kind, "inspect", "-f", format, name).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s inspect %s: %v\n%s", kind, name, err, out)
	}
	return strings.TrimSpace(string(out))
}
