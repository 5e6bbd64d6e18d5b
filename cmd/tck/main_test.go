package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/testbin"
	"github.com/fortune-tck/fortune-tck/target"
)

func runTCK(args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageAndUnknownCommands(t *testing.T) {
	// Exit status 1 is what runChecked returns for a blocked scenario as for a failed one.
	if code, out, _ := runTCK("--help"); code != exitOK || !strings.Contains(out, "tck run [--target FILE]") || !strings.Contains(out, "1    some failed or were blocked") {
		t.Errorf("--help: %d %s", code, out)
	}
	if code, _, errOut := runTCK("frobnicate"); code != exitUsage || !strings.Contains(errOut, "the commands are run, expect, diff, coverage") {
		t.Errorf("unknown command: %d %s", code, errOut)
	}
	if code, out, _ := runTCK("run", "--help"); code != exitOK || !strings.Contains(out, "Usage: tck run [flags]") {
		t.Errorf("run --help: %d %s", code, out)
	}
	if code, out, _ := runTCK("help", "run"); code != exitOK || !strings.Contains(out, "Usage: tck run [flags]") {
		t.Errorf("help run: %d %s", code, out)
	}
	if code, _, errOut := runTCK("run", "--format", "fancy", "--reports", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "use progress or pretty") {
		t.Errorf("bad format: %d %s", code, errOut)
	}
}

func TestValidateNamesTheFieldsOfABadTarget(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("services:\n  configServer:\n    url: nope\n"), 0o644)
	code, _, errOut := runTCK("validate", bad)
	if code != exitUsage || !strings.Contains(errOut, "services.configServer.url") || !strings.Contains(errOut, "services.configServer.repository.uri: required") {
		t.Errorf("validate bad: %d %s", code, errOut)
	}
	if code, _, errOut := runTCK("run", "--target", bad, "--reports", dir); code != exitUsage || !strings.Contains(errOut, "services.configServer.url") {
		t.Errorf("run with a bad target: %d %s", code, errOut)
	}
	if code, _, errOut := runTCK("run", "--target", filepath.Join(dir, "none.yaml"), "--reports", dir); code != exitUsage || !strings.Contains(errOut, "check the file --target names") {
		t.Errorf("run with no such target file: %d %s", code, errOut)
	}
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("services:\n  configServer: {url: 'http://localhost:8888', repository: {uri: /srv/r.git}}\n"), 0o644)
	if code, out, errOut := runTCK("validate", good); code != exitOK || !strings.Contains(out, "valid target") {
		t.Errorf("validate good: %d %s %s", code, out, errOut)
	}
}

func TestCoverageAndCapabilities(t *testing.T) {
	code, out, errOut := runTCK("coverage", "--verbose")
	if code != exitOK || !strings.Contains(out, "4.4-get-app-profile") || !strings.Contains(out, "config/server.feature:") ||
		!strings.Contains(out, "uncovered:") {
		t.Errorf("coverage: %d %s %s", code, out, errOut)
	}
	code, out, _ = runTCK("capabilities")
	if code != exitOK || !strings.Contains(out, "config.flat-formats") {
		t.Errorf("capabilities: %d %s", code, out)
	}
}

// Ctrl-C during a run stops every service the harness started and removes its temporary directory.
func TestInterruptStopsTheReference(t *testing.T) {
	needs.Program(t, "redis-server")
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	cmd := exec.Command(builtTCK(t), "run", "--reports", filepath.Join(dir, "reports"))
	cmd.Dir = "../.." // the checkout
	// The reference built once for the package; harness/boot's own test builds it as tck run does.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "TCK_REFERENCE_BIN="+testbin.Path(t, "reference"))
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	group := waitForReference(t, stdout)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
			t.Errorf("exit: %v, want status %d", err, exitInterrupted)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("tck did not stop within 60s of Ctrl-C")
	}
	if err := syscall.Kill(-group, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("a process of the reference's group %d still exists (kill 0: %v)", group, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
	if page, _ := os.ReadFile(filepath.Join(dir, "reports", "index.html")); !strings.Contains(string(page), "tck: interrupted") {
		t.Errorf("index.html does not say the run was interrupted:\n%s", page)
	}
}

// waitForReference reads the progress lines until the reference is ready, and returns the pid of `reference up`,
// which leads the process group of every service.
func waitForReference(t *testing.T, r interface{ Read([]byte) (int, error) }) int {
	t.Helper()
	started := regexp.MustCompile(`started reference up \(pid (\d+)\)`)
	pid := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := started.FindStringSubmatch(sc.Text()); m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
		if strings.Contains(sc.Text(), "reference ready") {
			go func() {
				for sc.Scan() {
				}
			}()
			return pid
		}
	}
	t.Fatal("tck ended before the reference was ready")
	return 0
}

// The same suite runs against an implementation described in a target file: here the reference, booted by
// hand and described in YAML as a third party would describe theirs, with a scenario of every area.
func TestRunAgainstATargetFile(t *testing.T) {
	needs.Program(t, "redis-server", "chromium")
	tg := *testbin.Reference(t)
	tg.Implementation = target.Implementation{Organization: "Example", Project: "third-party", Version: "9.9"}
	tg.Capabilities = []features.Capability{features.CapConfigErrors}
	// The gateway takes its manifests through an apply command here, as a Kubernetes one would.
	gw := *tg.Services.Gateway
	manifests := gw.ManifestDir
	before, err := os.ReadDir(manifests)
	if err != nil {
		t.Fatal(err)
	}
	gw.Apply = fmt.Sprintf(`cp "$TCK_MANIFEST" '%s/'"$TCK_MANIFEST_NAME.yaml"`, manifests)
	gw.Delete = fmt.Sprintf(`rm '%s/'"$TCK_MANIFEST_NAME.yaml"`, manifests)
	gw.ManifestDir = ""
	tg.Services.Gateway = &gw
	data := targetYAML(t, &tg)
	file, dir := writeTarget(t, data), t.TempDir()
	tags := "@spec-2.5-app-yml,@capability-config.errors,@spec-4.5-post-bus-refresh,@spec-2.2-exp,@spec-8.3,@spec-4.2-get-any-path,@spec-7-greeting-unauthenticated"
	code, out, errOut := runTCK("run", "--target", file, "--format", "progress", "--reports", dir, "--tags", tags)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s\ntarget file:\n%s", code, out, errOut, data)
	}
	// @spec-4.5-post-bus-refresh includes scenarios of config.bus-spring-wire: the reference's target names
	// its broker, which declares it. @spec-4.2-get-any-path tags two outlines: two paths, and the scheme in
	// lower and in upper case.
	if !strings.Contains(out, "22 passed, 0 failed") {
		t.Errorf("the selected scenarios did not all run and pass:\n%s", out)
	}
	// The suite leaves the gateway as it found it: every manifest it applied is deleted again.
	if after, _ := os.ReadDir(manifests); len(after) != len(before) {
		t.Errorf("the gateway's manifests were %d files before the run and are %d after: %v", len(before), len(after), after)
	}
	report, err := os.ReadFile(filepath.Join(dir, "conformance-report.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"project: third-party", "supportedFeatures:\n        - config.bus-spring-wire\n        - config.errors",
		"- name: oauth", "- name: check-token", "- name: gateway", "- name: config"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if !regexp.MustCompile(`unsupportedFeatures:\n(\s+- \S+\n)*\s+- config\.flat-formats\n`).Match(report) {
		t.Errorf("report does not list config.flat-formats among the unsupported features:\n%s", report)
	}
}

// Conventional commands: every --help prints to stdout and exits 0, in one flag style; --version names the
// build; a --tags that selects nothing is a usage error before anything is built or started.
func TestHelpVersionAndTagsAreConventional(t *testing.T) {
	for _, cmd := range []string{"run", "expect", "diff", "coverage", "validate", "matrix", "report", "docs", "capabilities", "version", "--version"} {
		want := "Usage: tck " + cmd
		if cmd == "version" {
			want = "Usage: tck --version"
		}
		for _, help := range []string{"--help", "-h"} {
			code, out, errOut := runTCK(cmd, help)
			if code != exitOK || !strings.HasPrefix(out, want) || errOut != "" {
				t.Errorf("tck %s %s: exit %d, stdout %q, stderr %q; want 0, %q on stdout", cmd, help, code, out, errOut, want)
			}
			if regexp.MustCompile(`\n  -[a-z]`).MatchString(out) {
				t.Errorf("tck %s %s shows a flag as -name, want --name:\n%s", cmd, help, out)
			}
		}
	}
	if code, out, _ := runTCK("--version"); code != exitOK || !strings.HasPrefix(out, "tck ") {
		t.Errorf("--version: %d %q", code, out)
	}
	start := time.Now()
	for _, tags := range []string{"@spec-44", "@spec-4.4 and @spec-2.5", "@spec-4.4,,@x"} {
		if code, _, errOut := runTCK("run", "--tags", tags, "--reports", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "--tags") {
			t.Errorf("--tags %q: exit %d %q, want a usage error", tags, code, errOut)
		}
	}
	for _, n := range []string{"0", "-2"} {
		if code, _, errOut := runTCK("run", "--concurrency", n, "--reports", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "--concurrency") {
			t.Errorf("--concurrency %s: exit %d %q, want a usage error", n, code, errOut)
		}
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("bad --tags took %s: something was built or started before the check", time.Since(start))
	}
}

// A provisioning secret the server refuses is one error of the run, found at preflight (exit 3), not a list of
// blocked scenarios.
func TestARefusedProvisioningSecretIsOneRunError(t *testing.T) {
	needs.Program(t, "redis-server")
	tg := *testbin.Reference(t)
	as := *tg.Services.AuthServer
	p := *as.ProvisioningAPI()
	p.ClientSecret = "not-the-secret"
	as.Provisioning, as.Admin = &p, nil
	tg.Services = target.Services{AuthServer: &as}
	data, err := yaml.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runTCK("run", "--target", file, "--reports", t.TempDir())
	if code != exitRunError || !strings.Contains(errOut, "services.authServer.provisioning: the admin client") {
		t.Errorf("exit %d, want %d and the provisioning field named\n%s\n%s", code, exitRunError, out, errOut)
	}
}

// A run that cannot be carried out leaves no earlier verdict in its folder: the earlier run's reports and logs
// are gone, and index.html says why this one stopped.
func TestAnErroringRunLeavesNoOldVerdict(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	file := filepath.Join(t.TempDir(), "target.yaml")
	os.WriteFile(file, []byte("services:\n  configServer: {url: 'http://"+down+"', repository: {uri: /srv/r.git}}\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--target", file}, exitRunError, "the target cannot be tested: cannot reach the target: services.configServer.url"},
		{[]string{"--tags", "@no-such-tag"}, exitUsage, "--tags: &#34;@no-such-tag&#34; selects no scenario"},
	} {
		dir := t.TempDir()
		stale := append([]string{"logs/reference.log"}, harness.RunFiles...)
		for _, f := range append([]string{"keep.txt"}, stale...) {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
			os.WriteFile(filepath.Join(dir, f), []byte("an earlier run's verdict: success"), 0o644)
		}
		code, _, errOut := runTCK(append([]string{"run", "--reports", dir}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.code, errOut)
		}
		for _, f := range stale[:len(stale)-1] { // index.html is the page of this run
			if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
				t.Errorf("%v: the earlier run's %s is still there", c.args, f)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
			t.Errorf("%v: a file tck did not write was removed: %v", c.args, err)
		}
		page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
		for _, w := range []string{"could not be carried out", c.want, fmt.Sprintf("<dd>%d ", c.code)} {
			if !strings.Contains(string(page), w) {
				t.Errorf("%v: index.html does not say %q:\n%s", c.args, w, page)
			}
		}
	}
}

// A reports folder tck cannot make is a usage error before anything is started.
func TestAReportsFolderThatCannotBeMadeIsAUsageError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	code, _, errOut := runTCK("run", "--reports", filepath.Join(file, "reports"))
	if code != exitUsage || !strings.Contains(errOut, "--reports") || !strings.Contains(errOut, "Give a folder tck can write") {
		t.Errorf("exit %d %q, want a usage error about --reports", code, errOut)
	}
}
