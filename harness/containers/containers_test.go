package containers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/dockertest"
	"github.com/fortune-tck/fortune-tck/target"
)

// parse reads a target whose configuration server is the given container.
func parse(t *testing.T, container string) *target.Target {
	t.Helper()
	doc := "services:\n  configServer:\n    repository: {uri: /srv/repo}\n    container:\n" + container
	tg, err := target.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func start(t *testing.T, tg *target.Target) (*Set, error) {
	t.Helper()
	id := fmt.Sprintf("test-%s-%d", t.Name(), os.Getpid())
	t.Cleanup(func() { dockertest.RemoveContainers(t, LabelRun+"="+id) })
	set, err := Start(context.Background(), tg, Options{RunID: id, LogDir: t.TempDir()})
	if err != nil {
		if left := dockertest.Containers(t, LabelRun+"="+id); len(left) > 0 {
			t.Errorf("a failed start left containers behind: %v", left)
		}
	}
	return set, err
}

func TestAServiceGivenAsAnImageGetsItsAddressAndIsRemovedAfterwards(t *testing.T) {
	image := dockertest.BuildReference(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mounted.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := parse(t, fmt.Sprintf(`      image: %s
      command: [serve, quotes, --host, 0.0.0.0, --port, "8081"]
      port: 8081
      files: [{source: %s, target: /srv/mounted, readOnly: true}]
      ready: {http: /api/random, log: "msg=listening"}
`, image, dir))
	set, err := start(t, tg)
	if err != nil {
		t.Fatal(err)
	}
	url := tg.Services.ConfigServer.URL
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the service's url is %q, want the container's address on 127.0.0.1", url)
	}
	resp, err := http.Get(url + "/api/random")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/api/random: %s", url, resp.Status)
	}
	id := set.opts.RunID
	set.Stop()
	if left := dockertest.Containers(t, LabelRun+"="+id); len(left) > 0 {
		t.Errorf("Stop left containers behind: %v", left)
	}
	if _, err := os.Stat(filepath.Join(set.opts.LogDir, "configServer-container.log")); err != nil {
		t.Errorf("the container's log was not kept: %v", err)
	}
}

// Each bad container is one error naming the service, the image and what its log said, and leaves nothing.
func TestABadContainerIsOneErrorWithItsLogAndLeavesNothingBehind(t *testing.T) {
	image := dockertest.BuildReference(t)
	cases := []struct {
		name, container string
		want            []string
	}{
		{"image absent and not pullable", `      image: fortune-tck/no-such-image:0
      port: 8081
`, []string{"services.configServer.container", "fortune-tck/no-such-image:0", "not present locally, and pulling it failed"}},
		{"exits at start", fmt.Sprintf(`      image: %s
      command: [serve, configserver, --uri, /nowhere]
      port: 8888
`, image), []string{"services.configServer.container", image, "stopped before it was ready (exit code 1)", "last lines of its log", "/nowhere"}},
		{"never ready", fmt.Sprintf(`      image: %s
      command: [serve, quotes, --port, "8081"]
      port: 8081
      ready: {timeout: 3s}
`, image), []string{"services.configServer.container", image, "not ready within 3s", "last lines of its log", "msg=listening"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := start(t, parse(t, c.container))
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("error %v, want a *containers.Error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// Each way a container fails says what to do next, with the field to change; the log comes last.
func TestAContainerErrorSaysWhatToDoNext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: pull access denied", errNoImage), "or fix services.fortune.container.image"},
		{fmt.Errorf("%w (exit code 1)", errStopped), "fix what it needs in services.fortune.container"},
		{notReady(ctx, target.Readiness{Timeout: target.Duration(time.Second)}, "/"), "raise services.fortune.container.ready.timeout"},
	} {
		msg := (&Error{Field: "services.fortune", Image: "img", Err: c.err, Log: "the log"}).Error()
		if !strings.Contains(msg, c.want) || !strings.HasSuffix(msg, "the log") {
			t.Errorf("%v: %q, want %q before the log", c.err, msg, c.want)
		}
	}
}
