// Package boot starts the reference implementation as a target: it builds cmd/reference from this checkout,
// starts each service as a separate process (and a redis-server for the refresh bus), and stops them all again.
// A service that can take --port 0 does, and reports the port it got in a ready file (the fortune service, the
// configuration server); the authorization server and the greeting client must know their own URL before they
// bind, the gateways' ports are written in their Gateway manifest and redis-server has no such report, so theirs
// are chosen free beforehand. The harness talks to the processes over the wire only, exactly as it talks to any other
// implementation.
package boot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/launch"
	"github.com/fortune-tck/fortune-tck/harness/target"
)

// module is the module path that marks a checkout of this project.
const module = "github.com/fortune-tck/fortune-tck"

// Options tune how the reference is booted.
type Options struct {
	// Binary is a prebuilt reference binary; empty means build cmd/reference from the checkout.
	Binary string
	// LogDir receives one log file per service, kept after the stack stops.
	LogDir string
	// Progress receives one line per step; nil means silence.
	Progress io.Writer
}

// Stack is a running reference target.
type Stack struct {
	Target *target.Target
	dir    string
	procs  []*launch.Process
	opts   Options
}

// Reference boots every service of the reference and returns the target that describes it. On error, whatever
// was started is stopped again.
func Reference(ctx context.Context, opts Options) (st *Stack, err error) {
	dir, err := os.MkdirTemp("", "fortune-tck-reference-")
	if err != nil {
		return nil, err
	}
	st = &Stack{dir: dir, opts: opts, Target: &target.Target{
		Implementation: target.Implementation{Organization: "fortune-tck", Project: "fortune-tck reference",
			URL: "https://" + module, Version: version(), Contact: []string{"fortune-tck maintainers"}},
		Capabilities: features.Strings(features.DeclarableCapabilities()),
	}}
	defer func() {
		if err != nil {
			st.Stop()
			st = nil
		}
	}()
	if st.opts.LogDir == "" {
		st.opts.LogDir = filepath.Join(dir, "logs")
	}
	if err := os.MkdirAll(st.opts.LogDir, 0o755); err != nil {
		return st, err
	}
	bin := opts.Binary
	if bin == "" {
		if bin, err = st.build(ctx); err != nil {
			return st, err
		}
	}
	if err := st.startOAuthServices(ctx, bin); err != nil {
		return st, err
	}
	if err := st.startConfigServer(ctx, bin); err != nil {
		return st, err
	}
	redisURL, err := st.startRedis(ctx)
	if err != nil {
		return st, err
	}
	st.describeConfigApp(bin, redisURL)
	if err := st.startGateways(ctx, bin, redisURL); err != nil {
		return st, err
	}
	return st, nil
}

func (st *Stack) progress(format string, args ...any) {
	if st.opts.Progress != nil {
		fmt.Fprintf(st.opts.Progress, format+"\n", args...)
	}
}

// build compiles the commands of the checkout the harness runs in (./cmd/...) and returns the reference's.
// Building them all by pattern keeps harness/ free of any path into the reference: it only ever runs the
// binary, as it would run anyone's implementation.
func (st *Stack) build(ctx context.Context) (string, error) {
	root, err := Checkout()
	if err != nil {
		return "", err
	}
	binDir := filepath.Join(st.dir, "bin")
	st.progress("building the reference from %s", root)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the commands of %s: %w\n%s", root, err, out)
	}
	return filepath.Join(binDir, "reference"), nil
}

// Checkout finds the root of the fortune-tck checkout that contains the working directory.
func Checkout() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			line, _, _ := strings.Cut(string(data), "\n")
			if strings.TrimSpace(line) == "module "+module {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no --target given, and the working directory is not inside a fortune-tck " +
				"checkout to build the reference from: run from the checkout, set TCK_REFERENCE_BIN to a built " +
				"reference binary, or pass --target FILE")
		}
		dir = parent
	}
}

// startOAuthServices runs the fortune service, the authorization server and the greeting client. The fortune
// service takes --port 0 and reports the port it got in its ready file; it needs only the authorization server's
// URL, which it does not call before a request comes. The authorization server (its token issuer) and the greeting
// client (its redirect URI) must know their own URL before they bind, so their ports are chosen first (and could,
// on a busy machine, be taken by another program in between: the start then fails and says so). The authorization
// server registers the greeting and fortune clients (its demo seed) with their redirect URIs. Scenarios provision
// their own users and clients.
func (st *Stack) startOAuthServices(ctx context.Context, bin string) error {
	var ports [2]int
	for i := range ports {
		p, err := launch.FreePort()
		if err != nil {
			return err
		}
		ports[i] = p
	}
	url := func(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }
	auth, greeting := url(ports[0]), url(ports[1])
	fortune, err := st.startReady(ctx, "fortune", bin, "/", "--auth-url", auth)
	if err != nil {
		return err
	}
	services := []struct {
		name, base, ready string
		args              []string
	}{
		{"authserver", auth, "/healthz", []string{"--port", strconv.Itoa(ports[0]), "--url", auth, "--seed-demo",
			"--greeting-url", greeting + "/", "--fortune-url", fortune + "/"}},
		{"greeting", greeting, "/", []string{"--port", strconv.Itoa(ports[1]), "--url", greeting,
			"--auth-url", auth, "--fortune-url", fortune}},
	}
	for _, svc := range services {
		p, err := st.start(svc.name, nil, bin, append([]string{"serve", svc.name}, svc.args...)...)
		if err != nil {
			return err
		}
		if err := st.ready(p, p.WaitHTTP(ctx, svc.base+svc.ready, 30*time.Second), svc.base); err != nil {
			return err
		}
	}
	st.Target.Services.AuthServer = &target.AuthServer{URL: auth,
		Provisioning: &target.Provisioning{API: "uaa", ClientID: "admin", ClientSecret: "adminsecret"}}
	st.Target.Services.Fortune = &target.Service{URL: fortune}
	st.Target.Services.Greeting = &target.Service{URL: greeting}
	return nil
}

// startReady runs `reference serve NAME --port 0 --ready-file F args...`: the kernel picks the port while the
// service binds it, so no other program can take it in between. It returns the URL the service wrote to F once
// it listened, after that URL answered at probe.
func (st *Stack) startReady(ctx context.Context, name, bin, probe string, args ...string) (string, error) {
	file := filepath.Join(st.dir, name+".ready")
	p, err := st.start(name, nil, bin, append([]string{"serve", name, "--port", "0", "--ready-file", file}, args...)...)
	if err != nil {
		return "", err
	}
	base, err := p.WaitFile(ctx, file, 30*time.Second)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(base, "http://") {
		return "", fmt.Errorf("%s wrote %q to its ready file %s, not a URL", name, base, file)
	}
	return base, st.ready(p, p.WaitHTTP(ctx, base+probe, 30*time.Second), base)
}

func (st *Stack) startConfigServer(ctx context.Context, bin string) error {
	repo := filepath.Join(st.dir, "config-repo.git")
	if err := initRepository(repo); err != nil {
		return fmt.Errorf("creating the configuration repository: %w", err)
	}
	uri := "file://" + repo
	base, err := st.startReady(ctx, "configserver", bin, "/health",
		"--uri", uri, "--basedir", filepath.Join(st.dir, "configserver-cache"))
	if err != nil {
		return err
	}
	st.Target.Services.ConfigServer = &target.ConfigServer{URL: base, Repository: target.Repository{URI: uri}}
	return nil
}

// gatewayManifest is the Gateway resource of the reference target: one HTTP and one HTTPS listener (with a
// self-signed certificate), on ports the harness chose. Scenarios attach their routes to it.
const gatewayManifest = `apiVersion: gateway.networking.k8s.io/v1
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

// startGateways runs two gateway instances on one configuration folder and one Redis, so that scenarios can
// verify that Global counters are shared. The second instance shifts its listener ports by --port-offset.
func (st *Stack) startGateways(ctx context.Context, bin, redisURL string) error {
	base, err := freePortRun(4)
	if err != nil {
		return err
	}
	dir := filepath.Join(st.dir, "gateway-config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "gateway.yaml"), []byte(fmt.Sprintf(gatewayManifest, base, base+1)), 0o644); err != nil {
		return err
	}
	g := &target.Gateway{GatewayName: "tck", ManifestDir: dir, HarnessHost: "127.0.0.1"}
	for i, offset := range []int{0, 2} {
		name := fmt.Sprintf("gateway-%d", i+1)
		accessLog := filepath.Join(st.opts.LogDir, name+"-access.log")
		p, err := st.start(name, nil, bin, "serve", "gateway", "--config", dir, "--redis", redisURL,
			"--port-offset", strconv.Itoa(offset), "--access-log", accessLog)
		if err != nil {
			return err
		}
		inst := target.GatewayInstance{HTTP: fmt.Sprintf("http://127.0.0.1:%d", base+offset),
			HTTPS: fmt.Sprintf("https://127.0.0.1:%d", base+offset+1)}
		if err := st.ready(p, p.WaitHTTP(ctx, inst.HTTP+"/", 30*time.Second), inst.HTTP); err != nil {
			return err
		}
		g.Instances = append(g.Instances, inst)
		g.AccessLogs = append(g.AccessLogs, accessLog)
	}
	st.Target.Services.Gateway = g
	return nil
}

// freePortRun finds n consecutive free ports on 127.0.0.1, for listeners whose ports are written in a
// manifest and shifted by an offset.
func freePortRun(n int) (int, error) {
	for try := 0; try < 50; try++ {
		base, err := launch.FreePort()
		if err != nil {
			return 0, err
		}
		if base+n > 65535 {
			continue
		}
		ok := true
		for p := base; p < base+n && ok; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				continue
			}
			l.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, errors.New("found no run of free ports for the gateway's listeners")
}

// startRedis runs a private redis-server for the refresh bus of the configuration application's instances.
func (st *Stack) startRedis(ctx context.Context) (string, error) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New("redis-server is not installed; the reference's refresh bus needs it: " +
			"run `make deps` as root, or apt-get install redis-server")
	}
	port, err := launch.FreePort()
	if err != nil {
		return "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := st.start("redis", nil, server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", st.dir)
	if err != nil {
		return "", err
	}
	return "redis://" + addr + "/0", st.ready(p, p.WaitTCP(ctx, addr, 15*time.Second), addr)
}

// describeConfigApp gives the target the start command of the configuration application: scenarios start
// instances themselves, because an instance's application name and profiles are fixed at start.
func (st *Stack) describeConfigApp(bin, redisURL string) {
	st.Target.Services.ConfigApp = &target.ConfigApp{
		Start: fmt.Sprintf(`exec '%s' serve configapp --port "$TCK_PORT" --name "$TCK_APP_NAME" `+
			`--config-url "$TCK_CONFIG_URL" --redis '%s'`, bin, redisURL),
		StartTimeout: target.Duration(30 * time.Second),
		HarnessHost:  "127.0.0.1",
	}
}

func (st *Stack) start(name string, env []string, program string, args ...string) (*launch.Process, error) {
	p, err := launch.Start(name, filepath.Join(st.opts.LogDir, name+".log"), env, program, args...)
	if err != nil {
		return nil, err
	}
	st.procs = append(st.procs, p)
	st.progress("started %s (pid %d), log %s", name, p.PID(), p.LogPath())
	return p, nil
}

func (st *Stack) ready(p *launch.Process, err error, where string) error {
	if err == nil {
		st.progress("%s ready at %s", p.Name, where)
	}
	return err
}

// Stop ends every service and removes the temporary directory. Logs stay in LogDir when one was given. Stop may
// be called more than once.
func (st *Stack) Stop() {
	for i := len(st.procs) - 1; i >= 0; i-- {
		st.procs[i].Stop(5 * time.Second)
	}
	st.procs = nil
	if st.dir != "" {
		_ = os.RemoveAll(st.dir)
		st.dir = ""
	}
}

// PIDs returns the process ids of the running services, for tests that check nothing is left behind.
func (st *Stack) PIDs() []int {
	var pids []int
	for _, p := range st.procs {
		pids = append(pids, p.PID())
	}
	return pids
}

// Dir is the temporary directory of the stack, removed by Stop.
func (st *Stack) Dir() string { return st.dir }

// version names the checkout the reference was built from, when git can tell.
func version() string {
	root, err := Checkout()
	if err != nil {
		return "dev"
	}
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "dev"
	}
	return strings.TrimSpace(string(out))
}
