package harness

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/testbin"
	"github.com/fortune-tck/fortune-tck/target"
)

// TestMain removes the binaries testbin built.
func TestMain(m *testing.M) { testbin.Main(m) }

// TestConformanceOfTheReference is the suite itself under go test: it boots the reference from this checkout
// and runs every feature against it, each scenario a subtest. Every scenario passes, and the run leaves the
// reference as it found it: the same users, clients and groups (with the same members), the same branches and
// tags in the configuration repository and the same files on its master, the same manifests in the gateway's
// folder; and the report names nothing as left behind.
func TestConformanceOfTheReference(t *testing.T) {
	needs.Program(t, "redis-server", "chromium")
	ctx := context.Background()
	tg := testbin.Reference(t)
	before := targetState(t, tg)
	reports := t.TempDir()
	var out strings.Builder
	res, err := Run(ctx, Options{Target: tg, Format: "progress", ReportsDir: reports, Output: &out, TestingT: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if res.Failed > 0 || res.Blocked > 0 || res.Unsupported > 0 || res.NotUnderTest > 0 || res.Skipped > 0 || res.Passed == 0 {
		t.Errorf("the reference must pass every scenario: %+v", res)
	}
	for _, f := range []string{"junit.xml", "cucumber.json", "conformance-report.yaml"} {
		if fi, err := os.Stat(filepath.Join(reports, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s missing or empty: %v", f, err)
		}
	}
	for _, p := range res.Report.Profiles {
		if p.Core.Result != report.Success || (p.Extended != nil && p.Extended.Result.Result != report.Success) {
			t.Errorf("profile %s: %+v", p.Name, p)
		}
	}
	after := targetState(t, tg)
	for _, part := range slices.Sorted(maps.Keys(before)) {
		if gone, added := difference(before[part], after[part]); len(gone)+len(added) > 0 {
			t.Errorf("%s: the run removed %v and left %v", part, gone, added)
		}
	}
	if data, err := os.ReadFile(filepath.Join(reports, "conformance-report.yaml")); err != nil || strings.Contains(string(data), "leftBehind") {
		t.Errorf("the report names something left behind (%v):\n%s", err, data)
	}
}

// A target that is down is one error of the run, named with the field to check, and no scenario runs.
func TestAnUnreachableTargetIsOneErrorOfTheRun(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tg := &target.Target{Services: target.Services{ConfigServer: &target.ConfigServer{
		URL: "http://" + addr, Repository: target.Repository{URI: "file:///nonexistent"}}}}
	var out strings.Builder
	reports := t.TempDir()
	_, err = Run(context.Background(), Options{Target: tg, ReportsDir: reports, Output: &out})
	if !errors.Is(err, ErrSetup) {
		t.Fatalf("err = %v, want ErrSetup", err)
	}
	if !strings.Contains(err.Error(), "services.configServer.url") || !strings.Contains(err.Error(), addr) || strings.Count(err.Error(), "cannot reach") != 1 {
		t.Errorf("error does not name the field and address once: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("scenarios ran: %s", out.String())
	}
}

// Scenarios that need a capability or a service the target does not declare are reported as such, not run.
func TestUndeclaredCapabilitiesAreNotSupported(t *testing.T) {
	needs.Program(t, "redis-server")
	ctx := context.Background()
	tg := *testbin.Reference(t)
	tg.Capabilities = nil
	tg.Services.ConfigApp = nil
	var out strings.Builder
	res, err := Run(ctx, Options{Target: &tg, Format: "progress", ReportsDir: t.TempDir(), Output: &out,
		Tags: "@capability-config.errors,@spec-2.5-app-yml"})
	if err != nil {
		t.Fatal(err)
	}
	var p report.Profile
	for _, prof := range res.Report.Profiles {
		if prof.Name == "config" {
			p = prof
		}
	}
	if res.Unsupported == 0 || res.Passed == 0 || res.Failed != 0 {
		t.Errorf("result %+v\n%s", res, out.String())
	}
	// Every capability of the configuration server is unsupported; the application's (not under test) are
	// not listed at all.
	configCaps := 0
	for _, name := range features.DeclarableCapabilities() {
		if strings.HasPrefix(string(name), "config.") && name != features.CapConfigBusDestination && name != features.CapConfigEnvMasksSecrets {
			configCaps++
		}
	}
	if p.Extended == nil || len(p.Extended.UnsupportedFeatures) != configCaps ||
		slices.Contains(p.Extended.UnsupportedFeatures, string(features.CapConfigBusDestination)) {
		t.Errorf("unsupported features: %+v", p.Extended)
	}
	if p.Core.Result != report.Partial || p.Core.Statistics.Skipped == 0 {
		t.Errorf("scenarios left out by --tags must count as skipped: %+v", p.Core)
	}
	if len(p.UntestedServices) != 1 || p.UntestedServices[0] != "configApp" {
		t.Errorf("untested services: %v", p.UntestedServices)
	}
	if !strings.Contains(out.String(), "not supported: ") || !strings.Contains(out.String(), "not under test (the target declares no such service): configApp") {
		t.Errorf("summary does not name what is not supported:\n%s", out.String())
	}
}

// A discovery document that cannot be read, or names another issuer, is one error of the run that names the
// target's field and the document's URL; no scenario runs.
func TestABadDiscoveryDocumentIsOneErrorOfTheRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"issuer":"https://someone.else","authorization_endpoint":"https://someone.else/auth","token_endpoint":"https://someone.else/token"}`))
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	fixtures := &target.Fixtures{Users: target.Users{Reader: &target.User{Username: "u", Password: "p", Email: "u@x"}},
		Clients: target.Clients{Web: &target.Client{ClientID: "c", ClientSecret: "s", RedirectURI: "https://c.invalid/cb"}}}
	for name, c := range map[string]struct{ issuer, want string }{
		"another issuer": {srv.URL, `issuer is "https://someone.else", want exactly the issuer of the target`},
		"unreachable":    {down, "cannot be read"},
	} {
		t.Run(name, func(t *testing.T) {
			tg := &target.Target{Services: target.Services{AuthServer: &target.AuthServer{Issuer: c.issuer, Fixtures: fixtures}}}
			var out strings.Builder
			_, err := Run(context.Background(), Options{Target: tg, ReportsDir: t.TempDir(), Output: &out})
			if !errors.Is(err, ErrSetup) {
				t.Fatalf("err = %v, want ErrSetup", err)
			}
			for _, w := range []string{"services.authServer.issuer", c.issuer + "/.well-known/openid-configuration", c.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if out.Len() != 0 {
				t.Errorf("scenarios ran: %s", out.String())
			}
		})
	}
}

// The reference described by fixtures instead of its provisioning API: the scenarios run with the demo's
// identities, those that need fresh users are not supported; and a fixture whose password the server refuses
// is one error of the run that names the field, not a list of failed scenarios.
func TestFixturesInsteadOfProvisioning(t *testing.T) {
	needs.Program(t, "redis-server", "chromium")
	ctx := context.Background()
	tg := *testbin.Reference(t)
	as := *tg.Services.AuthServer
	as.Provisioning = nil
	as.Fixtures = &target.Fixtures{
		Users: target.Users{Reader: &target.User{Username: "marissa", Password: "wrong", Email: "marissa@test.org"}},
		Clients: target.Clients{
			Web:      &target.Client{ClientID: "greeting", ClientSecret: "greeting-secret", RedirectURI: tg.Services.Greeting.URL + "/"},
			Resource: &target.Client{ClientID: "fortune", ClientSecret: "fortune-secret"}},
	}
	tg.Services = target.Services{AuthServer: &as, Fortune: tg.Services.Fortune}
	var out strings.Builder
	_, err := Run(ctx, Options{Target: &tg, Format: "progress", ReportsDir: t.TempDir(), Output: &out})
	if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "services.authServer.fixtures.users.reader") ||
		!strings.Contains(err.Error(), "refused the password of marissa") {
		t.Fatalf("err = %v, want one error naming the fixture", err)
	}

	as.Fixtures.Users.Reader.Password = "koala"
	out.Reset()
	res, err := Run(ctx, Options{Target: &tg, Format: "progress", ReportsDir: t.TempDir(), Output: &out,
		Tags: "@spec-4.2-get-any-path,@spec-2.2-exp,@fresh-consent"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed != 6 || res.Failed+res.Blocked != 0 || res.Unsupported == 0 {
		t.Errorf("want the fortune outlines (two paths; the scheme in lower case, upper case and with two spaces) and every check_token field (1) to pass, fresh-consent scenarios unsupported: %+v\n%s", res, out.String())
	}
	if !strings.Contains(out.String(), "not supported: auth.provisioning") {
		t.Errorf("the summary does not say that fresh users need provisioning:\n%s", out.String())
	}
}

// A gateway folder the harness cannot write is one error of the run that names it and says what to do.
func TestAManifestDirTheHarnessCannotWriteIsOneRunError(t *testing.T) {
	err := checkManifestDir(&target.Gateway{ManifestDir: "/proc/no-such-folder"})
	if err == nil || !strings.Contains(err.Error(), "services.gateway.manifestDir") || !strings.Contains(err.Error(), "/proc/no-such-folder") ||
		!strings.Contains(err.Error(), "does not exist: start the implementation first") {
		t.Errorf("err = %v, want the field and the folder named, and to start the implementation first", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if err := checkManifestDir(&target.Gateway{ManifestDir: file}); err == nil || !strings.Contains(err.Error(), "Fix manifestDir") {
		t.Errorf("a file for a folder: %v, want to fix manifestDir", err)
	}
	dir := t.TempDir()
	if err := checkManifestDir(&target.Gateway{ManifestDir: dir}); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the check left %v in the folder", left)
	}
}
