package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/target"
)

// suiteTarget is one of the deployments `make test` runs the suite against. A mutant runs against every target
// that runs its service's code, each started as the test of make test starts it, so that it counts as caught
// only by what CI really runs: a bug in the gateway's rate limit service mode, for one, is invisible to the
// reference stack, whose gateways count in Redis themselves.
type suiteTarget struct {
	name string
	// services are the catalogue services whose code the target runs.
	services []string
	// test is the test of make test that runs the suite against the target.
	test string
	// ready tells, before any mutant runs, whether what the target needs is installed; nil: always.
	ready func() error
	// start starts, from the mutant's tree and reference binary, what tck does not start itself, and returns
	// tck run's further arguments and environment; nil: tck boots the reference from TCK_REFERENCE_BIN.
	start func(ctx context.Context, s scratchRun) (started, error)
	// expected tells the profiles that fail against the target by design; their scenarios catch nothing.
	expected func(profile string) bool
}

// scratchRun is where one target runs for one mutant: the patched tree, its reference binary, and a folder
// of the run's own (logs, reports, the target's state).
type scratchRun struct{ tree, bin, dir string }

// started is what a target's start gives tck, and how to stop it.
type started struct {
	args, env []string
	stop      func()
}

// startError is a target that did not start: broke says whether the mutant broke it (a catalogue defect)
// rather than the machine (a program missing, a port taken).
type startError struct {
	broke bool
	msg   string
}

func (e *startError) Error() string { return e.msg }

// targets are the suite runs of make test (harness/run_test.go, cmd/tck/envoyratelimit_test.go,
// cmd/tck/interop_test.go). The Compose and container tests run the reference image, whose services have the
// wiring of the reference stack; building an image per mutant would add minutes each and find nothing more.
var targets = []suiteTarget{
	{name: "reference", services: services, test: "harness: TestConformanceOfTheReference"},
	{name: "envoy-ratelimit", services: []string{"gateway"},
		test:  "cmd/tck: TestTheGatewayFeatureThroughEnvoysRateLimitService",
		ready: envoyRateLimitReady, start: startEnvoyRateLimit},
	{name: "oidc-provider", services: []string{"fortune", "greeting"},
		test:  "cmd/tck: TestInteropWithOIDCProvider",
		ready: oidcProviderReady, start: startOIDCProvider,
		// oidc-provider has no check_token: that profile fails by design (the test expects it).
		expected: func(profile string) bool { return profile == "check-token" }},
}

// targetsOf returns the targets that run m's service, among those chosen.
func targetsOf(m Mutant, chosen []suiteTarget) []suiteTarget {
	var out []suiteTarget
	for _, t := range chosen {
		if slices.Contains(t.services, m.Service) {
			out = append(out, t)
		}
	}
	return out
}

// selectTargets returns the targets named in only (comma-separated), or all when only is empty.
func selectTargets(only string) ([]suiteTarget, error) {
	if strings.TrimSpace(only) == "" {
		return targets, nil
	}
	var out []suiteTarget
	for _, name := range strings.Split(only, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(targets, func(t suiteTarget) bool { return t.name == name })
		if i < 0 {
			return nil, fmt.Errorf("--targets: no target %q; the targets: %s", name, strings.Join(targetNames(targets), ", "))
		}
		out = append(out, targets[i])
	}
	return out, nil
}

func targetNames(ts []suiteTarget) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	return names
}

// checkTargets tells, before the first mutant, what the targets the mutants need lack.
func checkTargets(ms []Mutant, chosen []suiteTarget) error {
	var errs []error
	for _, t := range chosen {
		needed := slices.ContainsFunc(ms, func(m Mutant) bool { return slices.Contains(t.services, m.Service) })
		if needed && t.ready != nil {
			if err := t.ready(); err != nil {
				errs = append(errs, fmt.Errorf("target %s: %w (or leave it out with --targets)", t.name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// cache is where make deps installs the programs the example targets run.
func cache() string {
	if c := os.Getenv("FORTUNE_TCK_CACHE"); c != "" {
		return c
	}
	return filepath.Join(os.Getenv("HOME"), ".cache", "fortune-tck")
}

func envoyRateLimitReady() error {
	if _, err := os.Stat(filepath.Join(cache(), "ratelimit", "bin", "service_cmd")); err != nil {
		return errors.New("envoyproxy/ratelimit is not built: run make deps")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		return errors.New("redis-server is not installed: run make deps as root")
	}
	return nil
}

func oidcProviderReady() error {
	if _, err := os.Stat(filepath.Join(cache(), "oidc-provider", "node_modules", "oidc-provider", "package.json")); err != nil {
		return errors.New("oidc-provider is not installed: run make deps")
	}
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node is not installed: run make deps as root")
	}
	return nil
}

// startTimeout bounds the start of an example deployment (envoy-ratelimit's test allows as much).
const startTimeout = 3 * time.Minute

// startEnvoyRateLimit runs examples/envoy-ratelimit/start.sh as its test does, with the mutant's reference, in
// a folder of the run's own and on free ports (the example's own are fixed, and may be taken by a Compose stack
// or make test); tck then runs the whole suite with the example's target file. A start that fails for another
// reason than a missing program is tried once more on other ports (a free port can be taken before it is
// bound): twice is the mutant's doing.
func startEnvoyRateLimit(ctx context.Context, s scratchRun) (started, error) {
	st, err := startEnvoyRateLimitOnce(ctx, s, 1)
	var se *startError
	if errors.As(err, &se) && se.broke && ctx.Err() == nil {
		st, err = startEnvoyRateLimitOnce(ctx, s, 2)
	}
	return st, err
}

func startEnvoyRateLimitOnce(ctx context.Context, s scratchRun, attempt int) (started, error) {
	ports, err := envoyRateLimitPorts()
	if err != nil {
		return started{}, err
	}
	// TIMEOUT: the gateways wait for the service's answers up to 5 s (the example's 1 s fails requests open on a
	// loaded machine, and a scenario fails for it, whatever the mutant).
	env := []string{"FORTUNE_TCK_RLS_DIR=" + filepath.Join(s.dir, "rls-"+strconv.Itoa(attempt)), "TIMEOUT=5s"}
	for name, port := range ports {
		env = append(env, name+"="+strconv.Itoa(port))
	}
	p, err := launch.Start("envoy-ratelimit", filepath.Join(s.dir, "envoy-ratelimit-"+strconv.Itoa(attempt)+".log"),
		append(env, "REFERENCE_BIN="+s.bin), filepath.Join(s.tree, "examples", "envoy-ratelimit", "start.sh"))
	if err != nil {
		return started{}, err
	}
	if err := p.WaitOutput(ctx, "envoy-ratelimit example ready", startTimeout); err != nil {
		// start.sh exits 3 when something it needs is missing, 1 when a port is taken or a process died.
		code, out := exitCode(p), p.Output()
		p.Stop(10 * time.Second)
		return started{}, &startError{broke: code != 3 && !strings.Contains(out, "already answers"),
			msg: "examples/envoy-ratelimit/start.sh: " + scriptSays(out, err)}
	}
	stop := func() { p.Stop(10 * time.Second) }
	return started{args: []string{"--target", filepath.Join(s.tree, "examples", "envoy-ratelimit", "target.yaml")}, env: env, stop: stop}, nil
}

// scriptSays is what start.sh said about its failure (its own lines, not the logs it shows after them), else
// the wait's error.
func scriptSays(out string, err error) string {
	var said []string
	for line := range strings.SplitSeq(out, "\n") {
		for _, p := range []string{"a process exited", "did not answer", "already answers", "is not built", "needs", "redis-server exited", "REFERENCE_BIN="} {
			if strings.Contains(line, p) {
				said = append(said, strings.TrimSpace(line))
				break
			}
		}
	}
	if len(said) == 0 {
		return err.Error()
	}
	return strings.Join(said, "; ")
}

// envoyRateLimitPorts are free ports for the example: its service's, and its gateways' listeners, whose
// second instance serves them 2 above (--port-offset 2).
func envoyRateLimitPorts() (map[string]int, error) {
	ports := map[string]int{}
	for _, name := range []string{"REDIS_PORT", "GRPC_PORT", "HTTP_PORT", "DEBUG_PORT"} {
		p, err := freeport.Port()
		if err != nil {
			return nil, err
		}
		ports[name] = p
	}
	for _, name := range []string{"HTTP", "HTTPS"} {
		p, err := freeWithTwoAbove()
		if err != nil {
			return nil, err
		}
		ports["GATEWAY_"+name+"_PORT"], ports["GATEWAY2_"+name+"_PORT"] = p, p+2
	}
	return ports, nil
}

// freeWithTwoAbove finds a port that is free with the port 2 above it, both a moment ago.
func freeWithTwoAbove() (int, error) {
	for range 50 {
		p, err := freeport.Port()
		if err != nil {
			return 0, err
		}
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+2)); err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, errors.New("found no free port with a free port 2 above it on 127.0.0.1")
}

// startOIDCProvider starts what TestInteropWithOIDCProvider starts: oidc-provider (examples/oidc-provider) and the
// mutant's fortune service and greeting client in front of it, on free ports, described by the example's
// target-mixed.yaml with the addresses of the run.
func startOIDCProvider(ctx context.Context, s scratchRun) (st started, err error) {
	var procs []*launch.Process
	st.stop = func() {
		for _, p := range slices.Backward(procs) {
			p.Stop(10 * time.Second)
		}
	}
	defer func() {
		if err != nil {
			st.stop()
		}
	}()
	var ports [3]int
	for i := range ports {
		if ports[i], err = freeport.Port(); err != nil {
			return st, err
		}
	}
	url := func(i int) string { return "http://127.0.0.1:" + strconv.Itoa(ports[i]) }
	issuer, fortuneURL, greetingURL := url(0), url(1), url(2)
	run := func(name, ready string, env []string, program string, args ...string) error {
		p, err := launch.Start(name, filepath.Join(s.dir, name+".log"), env, program, args...)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		if err := p.WaitHTTP(ctx, ready, startTimeout); err != nil {
			return &startError{broke: name != "oidc-provider", msg: err.Error()}
		}
		return nil
	}
	if err := run("oidc-provider", issuer+"/.well-known/openid-configuration", []string{"PORT=" + strconv.Itoa(ports[0]),
		"ISSUER=" + issuer, "GREETING_REDIRECT_URI=" + greetingURL + "/"}, filepath.Join(s.tree, "examples", "oidc-provider", "start.sh")); err != nil {
		return st, err
	}
	if err := run("fortune", fortuneURL+"/", nil, s.bin, "serve", "fortune", "--port", strconv.Itoa(ports[1]), "--issuer", issuer,
		"--token-validation", "introspection", "--client-id", "fortune", "--client-secret", "fortune-secret"); err != nil {
		return st, err
	}
	if err := run("greeting", greetingURL+"/", nil, s.bin, "serve", "greeting", "--port", strconv.Itoa(ports[2]), "--url", greetingURL,
		"--issuer", issuer, "--client-id", "greeting", "--client-secret", "greeting-secret", "--fortune-url", fortuneURL); err != nil {
		return st, err
	}
	tg, err := target.Load(filepath.Join(s.tree, "examples", "oidc-provider", "target-mixed.yaml"))
	if err != nil {
		return st, err
	}
	tg.Services.AuthServer.Issuer = issuer
	tg.Services.Fortune.URL, tg.Services.Greeting.URL = fortuneURL, greetingURL
	data, err := yaml.Marshal(tg)
	if err != nil {
		return st, err
	}
	file := filepath.Join(s.dir, "target.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return st, err
	}
	st.args = []string{"--target", file}
	return st, nil
}

// exitCode is the exit status of a program that has ended, -1 otherwise.
func exitCode(p *launch.Process) int {
	select {
	case <-p.Done():
	default:
		return -1
	}
	var ee *exec.ExitError
	if errors.As(p.Err(), &ee) {
		return ee.ExitCode()
	}
	return 0
}
