// Package containers starts the services a target gives as container images, with testcontainers-go, before
// the scenarios, and removes them after the run. Each one's port is published on a free port of 127.0.0.1
// chosen beforehand, so that a server that must know its own address at start (an issuer, a redirect URI) can
// be told it ($TCK_URL in its command), and the scenarios reach it there.
//
// Ryuk, testcontainers' reaper container, is off unless the environment asks for it: it is an image to pull,
// and the machines this project's CI runs on reach no registry. Cleaning up is this package's job instead: a
// container that fails to start is removed at once, and Stop, which cmd/tck defers (it runs after a failure and
// after Ctrl-C), removes the others. Images are used as present locally and pulled once when absent, never
// retried: testcontainers' own pull retries for minutes when no registry answers.
package containers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/fortune-tck/fortune-tck/target"
)

// LabelRun marks every container a run starts, with the run's id as value, so that a person (or a test) can
// find what a killed run left behind: docker ps -a --filter label=fortune-tck.run.
const LabelRun = "fortune-tck.run"

// logLines is how much of a failed container's log an error shows.
const logLines = 20

// Options tune a start.
type Options struct {
	// RunID is the value of the LabelRun label; empty means one made of the process id and the time.
	RunID string
	// LogDir receives each container's log when it is removed; empty means none are kept.
	LogDir string
	// Logger receives testcontainers' messages and one line per container started and removed.
	Logger *slog.Logger
}

// Set is the containers of one run.
type Set struct {
	running []*running
	opts    Options
}

type running struct {
	field string
	image string
	c     testcontainers.Container
}

// Error is a container that could not be started or did not become ready: one error of the run, naming the
// service's field, the image, what to do next and the last lines of the container's log.
type Error struct {
	Field, Image string
	Err          error
	Log          string // the last lines of the container's log, when it got as far as running
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s.container: image %s: %v", e.Field, e.Image, e.Err)
	if hint := e.hint(); hint != "" {
		msg += "\n  " + hint
	}
	if e.Log == "" {
		return msg
	}
	return msg + "\n  last lines of its log:\n    " + strings.ReplaceAll(strings.TrimRight(e.Log, "\n"), "\n", "\n    ")
}

func (e *Error) Unwrap() error { return e.Err }

// The ways a container fails that the error explains with what to do next.
var (
	errNoImage  = errors.New("not present locally, and pulling it failed")
	errStopped  = errors.New("the container stopped before it was ready")
	errNotReady = errors.New("not ready")
)

// hint says what to do about the error, naming the target's fields to change.
func (e *Error) hint() string {
	field := e.Field + ".container"
	switch {
	case errors.Is(e.Err, errNoImage):
		return fmt.Sprintf("Build or pull the image where the Docker daemon runs (docker images lists those it has), or fix %s.image.", field)
	case errors.Is(e.Err, errStopped):
		return fmt.Sprintf("Its log says why; fix what it needs in %s (command, env, mounts).", field)
	case errors.Is(e.Err, errNotReady):
		return fmt.Sprintf("If it only starts slowly, raise %s.ready.timeout; if it was up, fix %s.ready (http, log) to what it answers or logs.", field, field)
	}
	return ""
}

// Start starts every service of t given as a container, waits until each is ready and gives the service its
// address. On error, whatever was started is removed again and the Set is nil.
func Start(ctx context.Context, t *target.Target, opts Options) (*Set, error) {
	services := t.Containers()
	if len(services) == 0 {
		return &Set{opts: opts}, nil
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RunID == "" {
		opts.RunID = fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	}
	disableReaper()
	tclog.SetDefault(printfLogger{opts.Logger}) // its banner and progress: debug lines, not the run's output
	set := &Set{opts: opts}
	for _, svc := range services {
		r, base, err := set.start(ctx, svc)
		if err != nil {
			set.Stop()
			return nil, err
		}
		set.running = append(set.running, r)
		svc.SetURL(base)
		opts.Logger.Info("container ready", "service", svc.Field, "image", svc.Container.Image, "url", base)
	}
	return set, nil
}

// disableReaper turns Ryuk off unless the environment decided: see the package comment.
func disableReaper() {
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

// start runs one container and waits until it is ready; on failure the container is already removed.
func (s *Set) start(ctx context.Context, svc target.ContainerService) (*running, string, error) {
	spec := svc.Container
	fail := func(err error, log string) error {
		return &Error{Field: svc.Field, Image: spec.Image, Err: err, Log: log}
	}
	err := ensureImage(ctx, spec.Image)
	if err != nil {
		return nil, "", fail(err, "")
	}
	hostPort := spec.HostPort
	if hostPort == 0 {
		if hostPort, err = freeport.Port(); err != nil {
			return nil, "", fail(err, "")
		}
	}
	base := "http://127.0.0.1:" + strconv.Itoa(hostPort)
	c, err := testcontainers.GenericContainer(ctx, s.request(spec, hostPort, base))
	r := &running{field: svc.Field, image: spec.Image, c: c}
	if err == nil {
		err = c.Start(ctx)
	}
	if err == nil {
		err = waitReady(ctx, c, spec.Ready, base)
	}
	if err != nil {
		log := ""
		if c != nil {
			log = tail(c, logLines)
			s.remove(r)
		}
		return nil, "", fail(err, log)
	}
	return r, base, nil
}

// request is the container of spec, its port published on 127.0.0.1:hostPort.
func (s *Set) request(spec *target.Container, hostPort int, base string) testcontainers.GenericContainerRequest {
	vars := strings.NewReplacer(target.URLPlaceholder, base, "$TCK_HOST_PORT", strconv.Itoa(hostPort),
		"$TCK_PORT", strconv.Itoa(spec.Port))
	cmd := make([]string, len(spec.Command))
	for i, a := range spec.Command {
		cmd[i] = vars.Replace(a)
	}
	env := map[string]string{}
	for k, v := range spec.Env {
		env[k] = vars.Replace(v)
	}
	port := network.MustParsePort(strconv.Itoa(spec.Port) + "/tcp")
	return testcontainers.GenericContainerRequest{
		Logger: printfLogger{s.opts.Logger},
		ContainerRequest: testcontainers.ContainerRequest{
			Image: spec.Image, Cmd: cmd, Env: env, ExposedPorts: []string{port.String()},
			Labels: map[string]string{LabelRun: s.opts.RunID},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.PortBindings = network.PortMap{port: {{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: strconv.Itoa(hostPort)}}}
				for _, m := range spec.Files {
					bind := m.Source + ":" + m.Target
					if m.ReadOnly {
						bind += ":ro"
					}
					hc.Binds = append(hc.Binds, bind)
				}
			},
		},
	}
}

// ensureImage makes sure image is present locally, pulling it once when it is not. testcontainers then finds it
// and pulls nothing.
func ensureImage(ctx context.Context, image string) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("no Docker daemon: %w", err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, image); err == nil {
		return nil
	}
	pull, err := cli.ImagePull(ctx, image, client.ImagePullOptions{})
	if err == nil {
		err = pull.Wait(ctx)
		pull.Close()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errNoImage, err)
	}
	return nil
}

// waitReady polls until the container is ready, has stopped, or the timeout has passed.
func waitReady(ctx context.Context, c testcontainers.Container, ready target.Readiness, base string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(ready.Timeout))
	defer cancel()
	var logPattern *regexp.Regexp
	if ready.Log != "" {
		logPattern = regexp.MustCompile(ready.Log) // validated with the target
	}
	httpPath := ready.HTTP
	if httpPath == "" && logPattern == nil {
		httpPath = "/"
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := c.State(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			return err
		case err == nil && !st.Running:
			return fmt.Errorf("%w (exit code %d)", errStopped, st.ExitCode)
		case err == nil && answers(ctx, base+httpPath, httpPath) && logged(ctx, c, logPattern):
			return nil
		}
		select {
		case <-ctx.Done():
			return notReady(ctx, ready, httpPath)
		case <-tick.C:
		}
	}
}

func notReady(ctx context.Context, ready target.Readiness, httpPath string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		what := []string{}
		if httpPath != "" {
			what = append(what, "an answer below 500 at "+httpPath)
		}
		if ready.Log != "" {
			what = append(what, fmt.Sprintf("a log line matching %q", ready.Log))
		}
		return fmt.Errorf("%w within %s (waited for %s)", errNotReady, time.Duration(ready.Timeout), strings.Join(what, " and "))
	}
	return ctx.Err()
}

// answers tells whether url answers HTTP below 500; an empty path is no condition.
func answers(ctx context.Context, url, path string) bool {
	if path == "" {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := readinessClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 500
}

// readinessClient asks a container the harness started whether it answers: a redirect is an answer, never
// followed.
var readinessClient = &http.Client{
	Timeout:       2 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// logged tells whether a line of the container's log matches p; a nil p is no condition.
func logged(ctx context.Context, c testcontainers.Container, p *regexp.Regexp) bool {
	if p == nil {
		return true
	}
	rc, err := c.Logs(ctx)
	if err != nil {
		return false
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if p.Match(sc.Bytes()) {
			return true
		}
	}
	return false
}

// tail is the last n lines of the container's log, for an error message.
func tail(c testcontainers.Container, n int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	text, err := allLogs(ctx, c)
	if err != nil {
		return "(its log could not be read: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(its log is empty)"
	}
	return strings.Join(lines, "\n")
}

func allLogs(ctx context.Context, c testcontainers.Container) (string, error) {
	rc, err := c.Logs(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	return string(data), err
}

// Stop removes every container of the set, keeping their logs in LogDir. It works after the run's context was
// cancelled (Ctrl-C), and may be called more than once.
func (s *Set) Stop() {
	if s == nil {
		return
	}
	for i := len(s.running) - 1; i >= 0; i-- {
		s.remove(s.running[i])
	}
	s.running = nil
}

// remove keeps the container's log and removes the container, whatever happened to the run's context.
func (s *Set) remove(r *running) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.opts.LogDir != "" {
		s.keepLog(ctx, r)
	}
	if err := r.c.Terminate(ctx); err != nil {
		s.opts.Logger.Warn("removing a container failed", "service", r.field, "image", r.image,
			"container", r.c.GetContainerID(), "err", err)
		return
	}
	s.opts.Logger.Info("container removed", "service", r.field, "image", r.image)
}

func (s *Set) keepLog(ctx context.Context, r *running) {
	text, err := allLogs(ctx, r.c)
	if err != nil {
		return
	}
	name := strings.TrimPrefix(r.field, "services.") + "-container.log"
	if err := os.MkdirAll(s.opts.LogDir, 0o755); err == nil {
		_ = os.WriteFile(filepath.Join(s.opts.LogDir, name), []byte(text), 0o644)
	}
}

// printfLogger sends testcontainers' messages to slog, at debug level: they are progress, not results.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
