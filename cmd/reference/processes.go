package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/atomicfile"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/internal/version"
	"github.com/fortune-tck/fortune-tck/reference/authserver"
	"github.com/fortune-tck/fortune-tck/target"
)

// The process stack (reference up --processes) is the reference as a conformance run needs it: each service is
// a child process of `up` (this binary, `serve NAME`), on free loopback ports, with a private rabbitmq-server for the
// configuration applications' refresh bus (Spring Cloud Bus's wire), a private redis-server for the gateways'
// Global counters, two gateway instances on one manifest
// folder, and a fresh configuration repository. It is the demo's wiring (up.go) with another plan: a service's
// flags are where it listens, chosen here, then its args in the plan (service.args, in the service's file), the
// ones the demo builds it from. Once every service answers, `up` writes a target file describing the stack (the
// format tck validate accepts, with the command that starts a configuration application), so that a harness starts
// `up`, reads that file and stops the process group, and knows no flag of any service. Separate processes rather
// than one: each service's log is a file of its own, the two gateways share counters through Redis as two hosts
// would, and a crash of one service is reported as that service's exit.

// startTimeout bounds the wait for one service to answer.
const startTimeout = 30 * time.Second

// procStack is a running process stack.
type procStack struct {
	bin, logDir string
	plan        *plan // filled in as services start
	progress    io.Writer
	procs       []*launch.Process
	tg          target.Target
}

// processOptions are the flags of up --processes.
type processOptions struct {
	data, logDir, targetFile string
}

// upProcesses runs the process stack until ctx ends or a service exits.
func (c *cli) upProcesses(ctx context.Context, o processOptions) int {
	if err := removeStale(o.targetFile); err != nil {
		return c.fail("reference up", fmt.Errorf("--target-file: %w", err))
	}
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
	_ = removeStale(o.targetFile) // it describes a stack that no longer runs
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
	st := &procStack{bin: bin, logDir: logDir, plan: &plan{dataDir: data, urls: make(map[string]string)}, progress: progress}
	for _, dir := range []string{data, st.logDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return st, err
		}
	}
	st.tg = target.Target{Implementation: referenceImplementation(),
		Capabilities: features.DeclarableCapabilities()}
	// RabbitMQ takes seconds to start (an Erlang node): it starts first, and the other services meanwhile.
	brokerReady, err := st.startRabbitMQ(ctx)
	if err != nil {
		return st, err
	}
	if err := st.startOAuthServices(ctx); err != nil {
		return st, err
	}
	if err := st.startConfigServer(ctx); err != nil {
		return st, err
	}
	if err := st.startRedis(ctx); err != nil {
		return st, err
	}
	if err := brokerReady(); err != nil {
		return st, err
	}
	st.describeConfigApp()
	return st, st.startGateways(ctx)
}

// referenceImplementation names the reference in reports, with the commit it was built from when the build
// recorded one.
func referenceImplementation() target.Implementation {
	return target.Implementation{Organization: "fortune-tck", Project: "fortune-tck reference",
		URL: "https://github.com/fortune-tck/fortune-tck", Version: buildVersion(), Contact: []string{"fortune-tck maintainers"}}
}

func buildVersion() string { return version.Revision() }

// startOAuthServices runs the fortune service, the authorization server and the greeting client. The fortune
// service takes --port 0 and reports the port it got in its ready file; it needs only the authorization server's
// URL, which it does not call before a request comes. The authorization server (its token issuer) and the
// greeting client (its redirect URI) must know their own URL before they bind, so their ports are chosen first
// (another program could take one in between: the start then fails and says so). The authorization server
// registers the greeting and fortune clients (its demo seed); scenarios provision their own users and clients
// with the admin client.
func (st *procStack) startOAuthServices(ctx context.Context) error {
	authPort, err := freeport.Port()
	if err != nil {
		return err
	}
	greetingPort, err := freeport.Port()
	if err != nil {
		return err
	}
	urls := st.plan.urls
	urls["authserver"], urls["greeting"] = loopbackURL(authPort), loopbackURL(greetingPort)
	if urls["fortune"], err = st.startReady(ctx, "fortune", "/"); err != nil {
		return err
	}
	if err := st.startAt(ctx, "authserver", urls["authserver"]+"/healthz", "--port", strconv.Itoa(authPort)); err != nil {
		return err
	}
	if err := st.startAt(ctx, "greeting", urls["greeting"]+"/", "--port", strconv.Itoa(greetingPort)); err != nil {
		return err
	}
	st.tg.Services.AuthServer = &target.AuthServer{URL: urls["authserver"], Provisioning: &target.Provisioning{API: "uaa",
		ClientID: authserver.DefaultAdminClientID, ClientSecret: authserver.DefaultAdminClientSecret},
		LockoutAfterFailures: conformancePeriods.failures, LockoutPeriodSeconds: seconds(conformancePeriods.lockout),
		CountFailuresWithinSeconds: seconds(conformancePeriods.window), CodeLifetimeSeconds: seconds(conformancePeriods.code)}
	st.tg.Services.Fortune = &target.Service{URL: urls["fortune"]}
	st.tg.Services.Greeting = &target.Service{URL: urls["greeting"]}
	return nil
}

func seconds(d time.Duration) int { return int(d / time.Second) }

func loopbackURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

// serveArgs are the arguments of `serve NAME` in the stack: where the service listens (listen), then its args
// in the plan.
func (st *procStack) serveArgs(name string, listen ...string) []string {
	return append(append([]string{"serve", name}, listen...), lookupService(name).args(st.plan)...)
}

// startAt runs `serve NAME listen...` and waits until probe answers.
func (st *procStack) startAt(ctx context.Context, name, probe string, listen ...string) error {
	p, err := st.start(name, st.bin, st.serveArgs(name, listen...)...)
	if err != nil {
		return err
	}
	return st.ready(p, p.WaitHTTP(ctx, probe, startTimeout), probe)
}

// startReady runs `serve NAME --port 0 --ready-file F`: the kernel picks the port while the service binds it, so
// no other program can take it in between. It returns the URL the service wrote to F once it listened, after
// that URL answered at probe.
func (st *procStack) startReady(ctx context.Context, name, probe string) (string, error) {
	file := filepath.Join(st.plan.dataDir, name+".ready")
	_ = os.Remove(file) // a previous start's
	p, err := st.start(name, st.bin, st.serveArgs(name, "--port", "0", "--ready-file", file)...)
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
	repo := filepath.Join(st.plan.dataDir, "config-repo.git")
	if err := initSuiteRepository(repo); err != nil {
		return fmt.Errorf("creating the configuration repository %s: %w", repo, err)
	}
	st.plan.configRepo = "file://" + repo
	base, err := st.startReady(ctx, "configserver", "/health")
	if err != nil {
		return err
	}
	st.plan.urls["configserver"] = base
	st.tg.Services.ConfigServer = &target.ConfigServer{URL: base, Repository: target.Repository{URI: st.plan.configRepo}}
	return nil
}

// startRedis runs a private redis-server for the Global rate-limit counters.
func (st *procStack) startRedis(ctx context.Context) error {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return errors.New("redis-server is not installed; the process stack's rate-limit " +
			"counters need it: run `make deps` as root, or apt-get install redis-server")
	}
	port, err := freeport.Port()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := st.start("redis", server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", st.plan.dataDir)
	if err != nil {
		return err
	}
	st.plan.redisURL = "redis://" + addr + "/0"
	return st.ready(p, p.WaitTCP(ctx, addr, startTimeout), addr)
}

// describeConfigApp gives the target the start command of the configuration application: the harness starts
// instances per scenario, because an instance's application name and profiles are fixed at start, and it
// chooses the configuration server they fetch from. The command is this binary's `serve configapp` with its
// args in the plan; the harness fills in the variables.
func (st *procStack) describeConfigApp() {
	p := *st.plan
	p.urls = map[string]string{"configserver": "$TCK_CONFIG_URL"}
	args := append([]string{"exec", st.bin, "serve", "configapp", "--port", "$TCK_PORT", "--name", "$TCK_APP_NAME"},
		lookupService("configapp").args(&p)...)
	st.tg.Services.ConfigApp = &target.ConfigApp{
		Start:        shellCommand(args),
		StartTimeout: target.Duration(startTimeout),
		HarnessHost:  "127.0.0.1",
		Broker:       st.plan.brokerURL,
	}
}

// shellCommand joins words into a /bin/sh command: a variable ($NAME) in double quotes, so that the shell expands
// it, a word of letters and dashes (a command or a flag) as it is, anything else in single quotes.
func shellCommand(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		switch {
		case shellVariable.MatchString(w):
			quoted[i] = `"` + w + `"`
		case plainWord.MatchString(w):
			quoted[i] = w
		default:
			quoted[i] = shellQuote(w)
		}
	}
	return strings.Join(quoted, " ")
}

var (
	shellVariable = regexp.MustCompile(`^\$[A-Z_][A-Z0-9_]*$`)
	plainWord     = regexp.MustCompile(`^[a-z-]+$`)
)

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
func (st *procStack) startGateways(ctx context.Context) error {
	base, err := freePortRun(4)
	if err != nil {
		return err
	}
	dir := gatewayConfigDir(st.plan)
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
		p, err := st.start(name, st.bin, st.serveArgs("gateway", "--port-offset", strconv.Itoa(offset), "--access-log", accessLog)...)
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
		base, err := freeport.Port()
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
	return st.startEnv(name, nil, program, args...)
}

// startEnv is start with extra environment variables.
func (st *procStack) startEnv(name string, env []string, program string, args ...string) (*launch.Process, error) {
	p, err := launch.Child(name, filepath.Join(st.logDir, name+".log"), env, program, args...)
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
	return atomicfile.Write(path, append([]byte(header), data...))
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
