package main

import (
	"cmp"
	"context"
	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/testbin"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/target"
)

// The suite against an authorization server nobody here wrote: panva's oidc-provider (OpenID Certified),
// configured as its documentation configures it (examples/oidc-provider: its own paths and interaction pages,
// no UAA API), with the reference fortune service and greeting client in front of it. The target file is the
// README's worked example. What it must show: the OAuth flows pass; check_token fails with its one reason;
// provisioning is not supported; the reference fortune and greeting paired with it pass.
func TestInteropWithOIDCProvider(t *testing.T) {
	needs.Program(t, "node (oidc-provider)", "redis-server", "chromium")
	root, err := boot.Checkout()
	if err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	ports := freeport.GetN(t, 3)
	fortuneURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	greetingURL := "http://127.0.0.1:" + strconv.Itoa(ports[2])
	issuer := startOIDCProvider(t, root, logs, ports[0], "GREETING_REDIRECT_URI="+greetingURL+"/")

	bin := testbin.Path(t, "reference")
	fortune := startProcess(t, "fortune", logs, nil, bin, "serve", "fortune", "--port", strconv.Itoa(ports[1]),
		"--issuer", issuer, "--token-validation", "introspection", "--client-id", "fortune", "--client-secret", "fortune-secret")
	greeting := startProcess(t, "greeting", logs, nil, bin, "serve", "greeting", "--port", strconv.Itoa(ports[2]),
		"--url", greetingURL, "--issuer", issuer, "--client-id", "greeting", "--client-secret", "greeting-secret",
		"--fortune-url", fortuneURL)
	waitHTTP(t, fortune, fortuneURL+"/")
	waitHTTP(t, greeting, greetingURL+"/")

	// The example's target file, with the addresses of this run.
	tg, err := target.Load(filepath.Join(root, "examples", "oidc-provider", "target-mixed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tg.Services.AuthServer.Issuer = issuer
	tg.Services.Fortune.URL, tg.Services.Greeting.URL = fortuneURL, greetingURL
	file, dir := writeTarget(t, targetYAML(t, tg)), t.TempDir()
	code, out, errOut := runTCK("run", "--target", file, "--format", "progress", "--reports", dir)
	t.Log(out)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (check_token is missing)\n%s", code, exitFailed, errOut)
	}
	rep := readReport(t, filepath.Join(dir, "conformance-report.yaml"))
	want := map[features.ProfileName]struct{ core, extended report.Verdict }{
		"oauth":        {report.Success, report.Success},
		"check-token":  {report.Failure, report.BlockedVerdict},
		"provisioning": {report.NotSupported, report.NotSupported},
		"fortune":      {report.Success, report.Success},
		"greeting":     {report.Success, report.Success},
	}
	for _, p := range rep.Profiles {
		w, ok := want[p.Name]
		if !ok {
			t.Errorf("unexpected profile %s", p.Name)
			continue
		}
		delete(want, p.Name)
		var ext report.Verdict
		if p.Extended != nil {
			ext = p.Extended.Result.Result
		}
		if p.Core.Result != w.core || ext != w.extended {
			t.Errorf("profile %s: core %s, extended %s; want %s, %s\n%+v", p.Name, p.Core.Result, ext, w.core, w.extended, p)
		}
		if p.Core.Statistics.Failed+p.Core.Statistics.Skipped > 0 {
			t.Errorf("profile %s: %+v", p.Name, p.Core)
		}
	}
	if len(want) > 0 {
		t.Errorf("profiles missing from the report: %v", want)
	}
	if reason := "no check_token endpoint: 404 at " + issuer + "/check_token"; !strings.Contains(out, reason) || strings.Count(out, reason) != 1 {
		t.Errorf("the summary does not give the check_token profile's one reason %q once:\n%s", reason, out)
	}
	if strings.Contains(out, "Failed scenarios:") {
		t.Errorf("no scenario may fail against oidc-provider; a failure is either a difference to name in differences.yaml or a bug of the suite:\n%s", out)
	}
}

// startOIDCProvider starts the example oidc-provider (examples/oidc-provider, whose npm packages make deps
// installs) on port, with env added to its own, logging into logs, and returns its issuer once it answers.
func startOIDCProvider(t *testing.T, root, logs string, port int, env ...string) string {
	t.Helper()
	cache := cmp.Or(os.Getenv("FORTUNE_TCK_CACHE"), filepath.Join(os.Getenv("HOME"), ".cache", "fortune-tck"))
	if _, err := os.Stat(filepath.Join(cache, "oidc-provider", "node_modules", "oidc-provider", "package.json")); err != nil {
		t.Fatalf("oidc-provider is not installed in %s: run `make deps` (it installs the example's npm packages)", cache)
	}
	issuer := "http://127.0.0.1:" + strconv.Itoa(port)
	op := startProcess(t, "oidc-provider", logs, append([]string{"PORT=" + strconv.Itoa(port), "ISSUER=" + issuer}, env...),
		filepath.Join(root, "examples", "oidc-provider", "start.sh"))
	waitHTTP(t, op, issuer+"/.well-known/openid-configuration")
	return issuer
}

func startProcess(t *testing.T, name, logs string, env []string, program string, args ...string) *launch.Process {
	t.Helper()
	p, err := launch.Start(name, filepath.Join(logs, name+".log"), env, program, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(5 * time.Second) })
	return p
}

func waitHTTP(t *testing.T, p *launch.Process, url string) {
	t.Helper()
	if err := p.WaitHTTP(context.Background(), url, 30*time.Second); err != nil {
		t.Fatalf("%s did not answer at %s: %v\n%s", p.Name, url, err, p.Tail(20))
	}
}

func readReport(t *testing.T, path string) report.ConformanceReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.ConformanceReport
	if err := yaml.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}
