package containertest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/target"
)

const (
	composeFile   = "../../../docker-compose.yml"
	composeTarget = "../../../examples/compose/target.yaml"
)

// composePorts are docker-compose.yml's variables for the ports it publishes on 127.0.0.1, with their defaults
// (the spec's ports). With inside, the service listens on the moved port in the stack too, and every address
// naming it follows; otherwise only the published port moves.
var composePorts = []struct {
	env    string
	port   int
	inside bool
}{
	{"FORTUNE_TCK_AUTHSERVER_PORT", 9000, true},
	{"FORTUNE_TCK_FORTUNE_PORT", 8787, true},
	{"FORTUNE_TCK_GREETING_PORT", 8100, true},
	{"FORTUNE_TCK_CONFIGSERVER_PORT", 8888, true},
	{"FORTUNE_TCK_CONFIGAPP_PORT", 8080, true},
	{"FORTUNE_TCK_CONFIGAPP_2_PORT", 8082, true},
	{"FORTUNE_TCK_QUOTES_PORT", 8081, false},
	{"FORTUNE_TCK_GATEWAY_HTTP_PORT", 10080, false},
	{"FORTUNE_TCK_GATEWAY_HTTPS_PORT", 10443, false},
	{"FORTUNE_TCK_GATEWAY_2_HTTP_PORT", 10082, false},
	{"FORTUNE_TCK_GATEWAY_2_HTTPS_PORT", 10445, false},
	{"FORTUNE_TCK_REDIS_PORT", 6379, false},
	{"FORTUNE_TCK_RABBITMQ_PORT", 5672, false},
}

// Every port docker-compose.yml publishes is moved by its variable, defaulting to the spec's port; a service
// that must keep one address everywhere listens on the variable's port and is named by it, its default number
// written nowhere else in the file. Without Docker: the Docker test finds a slip only after minutes.
func TestEveryPortTheComposeStackPublishesIsMovable(t *testing.T) {
	data, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Services map[string]struct {
			Ports []string `yaml:"ports"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var published []string
	for _, s := range file.Services {
		published = append(published, s.Ports...)
	}
	var code []string // the file without its comments
	for _, line := range strings.Split(string(data), "\n") {
		if before, _, _ := strings.Cut(line, "#"); strings.TrimSpace(before) != "" {
			code = append(code, before)
		}
	}
	text := strings.Join(code, "\n")
	for _, p := range composePorts {
		ref := "${" + p.env + ":-" + strconv.Itoa(p.port) + "}"
		want := "127.0.0.1:" + ref + ":" + strconv.Itoa(p.port)
		if p.inside {
			want = "127.0.0.1:" + ref + ":" + ref
			if n := strings.Count(text, `"`+ref+`"`); n != 1 {
				t.Errorf("%s: %d services listen on it (--port %q), want 1", p.env, n, ref)
			}
			bare := regexp.MustCompile(`\b` + strconv.Itoa(p.port) + `\b`)
			if n, refs := len(bare.FindAllString(text, -1)), strings.Count(text, ref); n != refs {
				t.Errorf("%d is written %d times outside %s: the address it names does not move with the port",
					p.port, n-refs, ref)
			}
		}
		if !slices.Contains(published, want) {
			t.Errorf("docker-compose.yml does not publish %q (it publishes %v)", want, published)
		}
	}
	if len(published) != len(composePorts) {
		t.Errorf("docker-compose.yml publishes %d ports, the test knows %d: %v", len(published), len(composePorts), published)
	}
}

// examples/compose/target.yaml follows the same variables: with every port moved, no address of the target is on
// a default port.
func TestTheComposeTargetFollowsTheMovedPorts(t *testing.T) {
	moved := map[int]int{}
	for i, p := range composePorts {
		moved[p.port] = 40001 + i
		t.Setenv(p.env, strconv.Itoa(40001+i))
	}
	tg, err := target.Load(composeTarget)
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	addrs := regexp.MustCompile(`(localhost|127\.0\.0\.1):(\d+)`).FindAllStringSubmatch(string(out), -1)
	if len(addrs) < 8 {
		t.Fatalf("the compose target names %d addresses, want every service's:\n%s", len(addrs), out)
	}
	for _, a := range addrs {
		if n, _ := strconv.Atoi(a[2]); moved[n] != 0 {
			t.Errorf("%s stays on the default port %d with %s set:\n%s", a[0], n, envOf(n), out)
		}
	}
}

func envOf(port int) string {
	for _, p := range composePorts {
		if p.port == port {
			return p.env
		}
	}
	return "?"
}

// The compose stack runs the reference, which has every capability: its target declares them all, so that a
// capability added to the registry is not reported "not supported" there (the Docker test finds that only after
// minutes; this finds it at once).
func TestTheComposeTargetDeclaresEveryCapability(t *testing.T) {
	tg, err := target.Load(filepath.FromSlash(composeTarget))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range features.DeclarableCapabilities() {
		if !slices.Contains(tg.Capabilities, c) {
			t.Errorf("examples/compose/target.yaml does not declare %s, which the reference has", c)
		}
	}
}
