package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/target"
	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/reference/authserver"
)

// The process stack (reference up --processes) is the one wiring of the reference for a conformance run: each
// service is a child process of `up` (this binary, `serve NAME` with the flags below), on free loopback ports,
// with a private redis-server for the configuration applications' refresh bus and the gateways' Global counters,
// two gateway instances on one manifest folder, and a fresh configuration repository. Once every service
// answers, `up` writes a target file describing it (the format tck validate accepts, with the command that
// starts a configuration application), so that a harness starts `up`, reads that file and stops the process
// group, and knows no flag of any service. Separate processes rather than one: each service's log is a file of
// its own, the two gateways share counters through Redis as two hosts would, and a crash of one service is
// reported as that service's exit.

// startTimeout bounds the wait for one service to answer.
const startTimeout = 30 * time.Second

// procStack is a running process stack.
type procStack struct {
	bin, data, logDir string
	progress          io.Writer
	procs             []*launch.Process
	tg                target.Target
}

// processOptions are the flags of up --processes.
type processOptions struct {
	data, logDir, targetFile string
}

// upProcesses runs the process stack until ctx ends or a service exits.
func (c *cli) upProcesses(ctx context.Context, o processOptions) int {
	st, err := startProcessStack(ctx, o, c.stdout)
	if err != nil {
		if st != nil {
			st.stop()
		}
		return c.fail("reference up", err)
	}
	if o.targetFile != "" {
		if err := st.writeTarget(o.targetFile); err != nil {
			st.stop()
			return c.fail("reference up", fmt.Errorf("--target-file: %w", err))
		}
		fmt.Fprintf(c.stdout, "target file %s\n", o.targetFile)
	}
	code := st.wait(ctx, c.stderr)
	st.stop()
	return code
}

func startProcessStack(ctx context.Context, o processOptions, progress io.Writer) (*procStack, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the services with: %w", err)
	}
	// The target file names paths: absolute ones hold wherever it is read.
	data, err := filepath.Abs(o.data)
	if err != nil {
		return nil, err
	}
	logDir, err := filepath.Abs(o.logDir)
	if err != nil {
		return nil, err
	}
	st := &procStack{bin: bin, data: data, logDir: logDir, progress: progress}
	for _, dir := range []string{st.data, st.logDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return st, err
		}
	}
	st.tg = target.Target{Implementation: referenceImplementation(),
		Capabilities: features.Strings(features.DeclarableCapabilities())}
	if err := st.startOAuthServices(ctx); err != nil {
		return st, err
	}
	if err := st.startConfigServer(ctx); err != nil {
		return st, err
	}
	redisURL, err := st.startRedis(ctx)
	if err != nil {
		return st, err
	}
	st.describeConfigApp(redisURL)
	return st, st.startGateways(ctx, redisURL)
}

// referenceImplementation names the reference in reports, with the commit it was built from when the build
// recorded one.
func referenceImplementation() target.Implementation {
	return target.Implementation{Organization: "fortune-tck", Project: "fortune-tck reference",
		URL: "https://github.com/fortune-tck/fortune-tck", Version: buildVersion(), Contact: []string{"fortune-tck maintainers"}}
}

func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) < 7 {
		return "dev"
	}
	if dirty {
		return rev[:7] + "-dirty"
	}
	return rev[:7]
}

// startOAuthServices runs the fortune service, the authorization server and the greeting client. The fortune
// service takes --port 0 and reports the port it got in its ready file; it needs only the authorization server's
// URL, which it does not call before a request comes. The authorization server (its token issuer) and the
// greeting client (its redirect URI) must know their own URL before they bind, so their ports are chosen first
// (another program could take one in between: the start then fails and says so). The authorization server
// registers the greeting and fortune clients (its demo seed); scenarios provision their own users and clients
// with the admin client.
func (st *procStack) startOAuthServices(ctx context.Context) error {
	authPort, err := launch.FreePort()
	if err != nil {
		return err
	}
	greetingPort, err := launch.FreePort()
	if err != nil {
		return err
	}
	auth, greetingURL := loopbackURL(authPort), loopbackURL(greetingPort)
	fortuneURL, err := st.startReady(ctx, "fortune", "/", "--auth-url", auth)
	if err != nil {
		return err
	}
	if err := st.startAt(ctx, "authserver", auth+"/healthz", "--port", strconv.Itoa(authPort), "--url", auth,
		"--seed-demo", "--greeting-url", greetingURL+"/", "--fortune-url", fortuneURL+"/"); err != nil {
		return err
	}
	if err := st.startAt(ctx, "greeting", greetingURL+"/", "--port", strconv.Itoa(greetingPort), "--url", greetingURL,
		"--auth-url", auth, "--fortune-url", fortuneURL); err != nil {
		return err
	}
	st.tg.Services.AuthServer = &target.AuthServer{URL: auth, Provisioning: &target.Provisioning{API: "uaa",
		ClientID: authserver.DefaultAdminClientID, ClientSecret: authserver.DefaultAdminClientSecret}}
	st.tg.Services.Fortune = &target.Service{URL: fortuneURL}
	st.tg.Services.Greeting = &target.Service{URL: greetingURL}
	return nil
}

func loopbackURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

// startAt runs `serve NAME args...` and waits until probe answers.
func (st *procStack) startAt(ctx context.Context, name, probe string, args ...string) error {
	p, err := st.start(name, st.bin, append([]string{"serve", name}, args...)...)
	if err != nil {
		return err
	}
	return st.ready(p, p.WaitHTTP(ctx, probe, startTimeout), probe)
}

// startReady runs `serve NAME --port 0 --ready-file F args...`: the kernel picks the port while the service
// binds it, so no other program can take it in between. It returns the URL the service wrote to F once it
// listened, after that URL answered at probe.
func (st *procStack) startReady(ctx context.Context, name, probe string, args ...string) (string, error) {
	file := filepath.Join(st.data, name+".ready")
	_ = os.Remove(file) // a previous start's
	p, err := st.start(name, st.bin, append([]string{"serve", name, "--port", "0", "--ready-file", file}, args...)...)
	if err != nil {
		return "", err
	}
	base, err := p.WaitFile(ctx, file, startTimeout)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(base, "http://") {
		return "", fmt.Errorf("%s wrote %q to its ready file %s, not a URL", name, base, file)
	}
	return base, st.ready(p, p.WaitHTTP(ctx, base+probe, startTimeout), base)
}

func (st *procStack) startConfigServer(ctx context.Context) error {
	repo := filepath.Join(st.data, "config-repo.git")
	if err := initSuiteRepository(repo); err != nil {
		return fmt.Errorf("creating the configuration repository %s: %w", repo, err)
	}
	uri := "file://" + repo
	base, err := st.startReady(ctx, "configserver", "/health", "--uri", uri,
		"--basedir", filepath.Join(st.data, "configserver-cache"))
	if err != nil {
		return err
	}
	st.tg.Services.ConfigServer = &target.ConfigServer{URL: base, Repository: target.Repository{URI: uri}}
	return nil
}

// startRedis runs a private redis-server for the refresh bus and the Global rate-limit counters.
func (st *procStack) startRedis(ctx context.Context) (string, error) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New("redis-server is not installed; the process stack's refresh bus and rate-limit " +
			"counters need it: run `make deps` as root, or apt-get install redis-server")
	}
	port, err := launch.FreePort()
	if err != nil {
		return "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := st.start("redis", server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", st.data)
	if err != nil {
		return "", err
	}
	return "redis://" + addr + "/0", st.ready(p, p.WaitTCP(ctx, addr, startTimeout), addr)
}

// describeConfigApp gives the target the start command of the configuration application: the harness starts
// instances per scenario, because an instance's application name and profiles are fixed at start. The command
// is this binary with its flags; the harness fills in the variables.
func (st *procStack) describeConfigApp(redisURL string) {
	st.tg.Services.ConfigApp = &target.ConfigApp{
		Start: fmt.Sprintf(`exec %s serve configapp --port "$TCK_PORT" --name "$TCK_APP_NAME" `+
			`--config-url "$TCK_CONFIG_URL" --redis %s`, shellQuote(st.bin), shellQuote(redisURL)),
		StartTimeout: target.Duration(startTimeout),
		HarnessHost:  "127.0.0.1",
	}
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// suiteGatewayManifest is the Gateway resource of the process stack: one HTTP and one HTTPS listener (with a
// self-signed certificate) on free ports. Scenarios attach their routes to it.
const suiteGatewayManifest = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: tck
spec:
  gatewayClassName: fortune-tck
  listeners:
    - name: http
      protocol: HTTP
      port: %d
    - name: https
      protocol: HTTPS
      port: %d
`

// startGateways runs two gateway instances on one manifest folder and one Redis, so that scenarios can verify
// that Global counters are shared. The second instance shifts its listener ports by --port-offset.
func (st *procStack) startGateways(ctx context.Context, redisURL string) error {
	base, err := freePortRun(4)
	if err != nil {
		return err
	}
	dir := filepath.Join(st.data, "gateway-config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "gateway.yaml"), fmt.Appendf(nil, suiteGatewayManifest, base, base+1), 0o644); err != nil {
		return err
	}
	g := &target.Gateway{GatewayName: "tck", ManifestDir: dir, HarnessHost: "127.0.0.1"}
	for i, offset := range []int{0, 2} {
		name := fmt.Sprintf("gateway-%d", i+1)
		accessLog := filepath.Join(st.logDir, name+"-access.log")
		inst := target.GatewayInstance{HTTP: loopbackURL(base + offset),
			HTTPS: "https://127.0.0.1:" + strconv.Itoa(base+offset+1)}
		p, err := st.start(name, st.bin, "serve", "gateway", "--config", dir, "--redis", redisURL,
			"--port-offset", strconv.Itoa(offset), "--access-log", accessLog)
		if err != nil {
			return err
		}
		if err := st.ready(p, p.WaitHTTP(ctx, inst.HTTP+"/", startTimeout), inst.HTTP); err != nil {
			return err
		}
		g.Instances = append(g.Instances, inst)
		g.AccessLogs = append(g.AccessLogs, accessLog)
	}
	st.tg.Services.Gateway = g
	return nil
}

// freePortRun finds n consecutive free ports on 127.0.0.1, for listeners whose ports are written in a manifest
// and shifted by an offset.
func freePortRun(n int) (int, error) {
	for try := 0; try < 50; try++ {
		base, err := launch.FreePort()
		if err != nil {
			return 0, err
		}
		if base+n <= 65535 && portsFree(base, n) {
			return base, nil
		}
	}
	return 0, errors.New("found no run of free ports for the gateway's listeners")
}

func portsFree(base, n int) bool {
	for p := base; p < base+n; p++ {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}

// start runs one program of the stack in this process's group, with its log in the log folder.
func (st *procStack) start(name, program string, args ...string) (*launch.Process, error) {
	p, err := launch.Child(name, filepath.Join(st.logDir, name+".log"), nil, program, args...)
	if err != nil {
		return nil, err
	}
	st.procs = append(st.procs, p)
	fmt.Fprintf(st.progress, "started %s (pid %d), log %s\n", name, p.PID(), p.LogPath())
	return p, nil
}

func (st *procStack) ready(p *launch.Process, err error, where string) error {
	if err == nil {
		fmt.Fprintf(st.progress, "%s ready at %s\n", p.Name, where)
	}
	return err
}

// writeTarget writes the target file through a rename: a reader waiting for it sees all of it or nothing.
func (st *procStack) writeTarget(path string) error {
	var doc yaml.Node
	if err := doc.Encode(st.tg); err != nil {
		return err
	}
	data, err := yaml.Marshal(pruneEmpty(&doc))
	if err != nil {
		return err
	}
	header := "# The reference stack started by `reference up --processes`; valid while it runs.\n"
	return writeFileAtomically(path, append([]byte(header), data...))
}

// wait returns when ctx ends (exit 0) or a service exits on its own (exit 1, naming it).
func (st *procStack) wait(ctx context.Context, stderr io.Writer) int {
	exited := make(chan *launch.Process, len(st.procs))
	for _, p := range st.procs {
		go func() {
			select {
			case <-p.Done():
				exited <- p
			case <-ctx.Done():
			}
		}()
	}
	select {
	case <-ctx.Done():
		return exitOK
	case p := <-exited:
		fmt.Fprintf(stderr, "reference up: %s exited (%v); its output:\n%s\n", p.Name, p.Err(), p.Tail(20))
		return exitError
	}
}

// stop ends the services in the reverse order of their start.
func (st *procStack) stop() {
	for i := len(st.procs) - 1; i >= 0; i-- {
		st.procs[i].Stop(5 * time.Second)
	}
	st.procs = nil
}

// pruneEmpty drops the keys whose values are empty (the target types have no omitempty), so that the file
// says only what the stack set, as a person would write it.
func pruneEmpty(n *yaml.Node) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := pruneEmpty(n.Content[i+1]); !isEmpty(v) {
				kept = append(kept, n.Content[i], v)
			}
		}
		n.Content = kept
	case yaml.SequenceNode:
		for _, c := range n.Content {
			pruneEmpty(c)
		}
	}
	return n
}

func isEmpty(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Tag == "!!null" || (n.Tag == "!!str" && n.Value == "")
	}
	return false
}
