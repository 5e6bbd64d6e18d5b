package harness

import (
	"context"
	"fmt"
	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/steps"
	"github.com/fortune-tck/fortune-tck/target"
)

// instanceCount numbers the instances of a run, for their log files.
var instanceCount atomic.Int64

// appStarter runs the target's start command for one configuration application instance on a free loopback
// port, and waits until it answers HTTP at all (401 included).
func appStarter(ca *target.ConfigApp, configURL, logDir string) func(context.Context, string, string) (steps.Instance, error) {
	return func(ctx context.Context, name, profiles string) (steps.Instance, error) {
		port, err := freeport.Port()
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return nil, err
		}
		n := instanceCount.Add(1)
		env := []string{"TCK_APP_NAME=" + name, "TCK_PROFILES=" + profiles, "SPRING_PROFILES_ACTIVE=" + profiles,
			"TCK_PORT=" + strconv.Itoa(port), "TCK_CONFIG_URL=" + configURL}
		logPath := filepath.Join(logDir, fmt.Sprintf("configapp-%d-%s.log", n, name))
		p, err := launch.Shell(fmt.Sprintf("configuration application %s (instance %d)", name, n), logPath, env, ca.Start)
		if err != nil {
			return nil, err
		}
		url := "http://127.0.0.1:" + strconv.Itoa(port)
		if err := p.WaitHTTP(ctx, url+"/", time.Duration(ca.StartTimeout)); err != nil {
			p.Stop(5 * time.Second)
			return nil, fmt.Errorf("%w\n(started with services.configApp.start; log %s)", err, logPath)
		}
		return &instance{p: p, url: url}, nil
	}
}

type instance struct {
	p   *launch.Process
	url string
}

func (i *instance) URL() string { return i.url }
func (i *instance) Log() string { return i.p.Output() }
func (i *instance) Stop()       { i.p.Stop(10 * time.Second) }
