package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness"
	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
	"github.com/fortune-tck/fortune-tck/target"
)

// The configuration application's feature, run by the suite against the reference serving Spring Boot 2 and
// 3's actuator paths (--paths actuator), as a team with a current Spring application runs it: the target says
// where the operational endpoints are (target.ActuatorPaths) and names the broker of the bus. The feature
// against the Boot 1.x paths runs with the whole suite (harness.TestConformanceOfTheReference).
func TestTheConfigAppFeatureAtTheActuatorPaths(t *testing.T) {
	broker := rabbittest.Start(t).VHost(t)
	repo := filepath.Join(t.TempDir(), "config-repo.git")
	if err := initSuiteRepository(repo); err != nil {
		t.Fatal(err)
	}
	configServer := start(t, nil, "serve", "configserver", "--port", "0", "--uri", "file://"+repo).addr(t)
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tg := &target.Target{
		Implementation: target.Implementation{Project: "fortune-tck reference, --paths actuator"},
		Services: target.Services{
			ConfigServer: &target.ConfigServer{URL: configServer, Repository: target.Repository{URI: "file://" + repo}},
			ConfigApp: &target.ConfigApp{
				// The test binary runs as the reference (restart_test.go).
				Start: shellCommand([]string{"exec", "env", asReferenceEnv + "=1", bin, "serve", "configapp", "--port", "$TCK_PORT",
					"--name", "$TCK_APP_NAME", "--config-url", "$TCK_CONFIG_URL", "--bus", broker, "--paths", "actuator"}),
				StartTimeout: target.Duration(time.Minute), HarnessHost: "127.0.0.1",
				Broker: broker, Paths: target.ActuatorPaths,
			},
		},
		Capabilities: features.DeclarableCapabilities(),
	}
	var out strings.Builder
	res, err := harness.Run(context.Background(), harness.Options{Target: tg, Tags: "@config-app", Format: "progress",
		ReportsDir: t.TempDir(), Output: &out, TestingT: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	// The other areas' scenarios are not under test: the target declares only these two services.
	if res.Passed == 0 || res.Failed+res.Blocked+res.Unsupported > 0 {
		t.Errorf("the reference at the actuator paths must pass every scenario of the feature: %+v", res)
	}
}
