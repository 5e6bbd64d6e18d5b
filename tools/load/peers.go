package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
)

// serviceVersionFile pins the envoyproxy/ratelimit version make deps
// builds; the load tool runs from the checkout, as its build does.
const serviceVersionFile = "examples/envoy-ratelimit/service.version"

// gatewayWithService starts the gateway with its Global policy asked of
// envoyproxy/ratelimit, the service Envoy Gateway deploys, on a Redis of
// its own: the figure's CPU is the three processes', as the Redis figure's
// includes Redis's.
func (s *stack) gatewayWithService(up string, upErr error) started {
	if upErr != nil {
		return started{err: fmt.Errorf("no upstream: %w", upErr)}
	}
	bin, err := rateLimitService()
	if err != nil {
		return started{err: err}
	}
	redisURL, redisProc, err := s.redis()
	if err != nil {
		return started{err: err}
	}
	ports := make([]int, 3) // gRPC, health check, debug
	for i := range ports {
		if ports[i], err = freeport.Port(); err != nil {
			return started{err: err}
		}
	}
	root := filepath.Join(s.dir, "ratelimit-runtime")
	config := filepath.Join(root, "ratelimit", "config")
	if err := os.MkdirAll(config, 0o755); err != nil {
		return started{err: err}
	}
	redisAddr := strings.TrimSuffix(strings.TrimPrefix(redisURL, "redis://"), "/0")
	// The settings of internal/ratelimittest, logs at warn: the file mode
	// and plaintext gRPC on loopback.
	svc, err := s.startEnv("envoyproxy/ratelimit", []string{
		"RUNTIME_ROOT=" + root, "RUNTIME_SUBDIRECTORY=ratelimit", "RUNTIME_WATCH_ROOT=false", "RUNTIME_IGNOREDOTFILES=true",
		"REDIS_SOCKET_TYPE=tcp", "REDIS_URL=" + redisAddr, "REDIS_TYPE=SINGLE",
		"HOST=127.0.0.1", "PORT=" + strconv.Itoa(ports[1]), "DEBUG_HOST=127.0.0.1", "DEBUG_PORT=" + strconv.Itoa(ports[2]),
		"GRPC_HOST=127.0.0.1", "GRPC_PORT=" + strconv.Itoa(ports[0]),
		"USE_STATSD=false", "DISABLE_STATS=true", "LOG_FORMAT=json", "LOG_LEVEL=warn",
	}, bin)
	if err != nil {
		return started{err: err}
	}
	if err := svc.waitHTTP("http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/healthcheck"); err != nil {
		return started{err: err}
	}
	gw := s.gateway("gateway (Global through the rate limit service)", strings.TrimPrefix(up, "http://"), true, "",
		"--rate-limit-service", "grpc://127.0.0.1:"+strconv.Itoa(ports[0]), "--rate-limit-service-config", config)
	gw.t.procs = append(gw.t.procs, svc, redisProc)
	if gw.err == nil {
		// Until the service has read the limit the gateway wrote, it
		// answers OK without counting: wait, so that it counts.
		gw.err = svc.poll("loading its configuration", "load the gateway's limit", func() error {
			b, err := get("http://127.0.0.1:" + strconv.Itoa(ports[2]) + "/rlconfig")
			if err == nil && !strings.Contains(string(b), "requests_per_unit=1000000000") {
				err = fmt.Errorf("not in force yet: %q", b)
			}
			return err
		})
	}
	return gw
}

// rateLimitService is envoyproxy/ratelimit as make deps builds it, at the
// pinned version: another version would measure another service.
func rateLimitService() (string, error) {
	cache := os.Getenv("FORTUNE_TCK_CACHE")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache", "fortune-tck")
	}
	bin := filepath.Join(cache, "ratelimit", "bin", "service_cmd")
	want, err := os.ReadFile(serviceVersionFile)
	if err != nil {
		return "", fmt.Errorf("reading the pinned envoyproxy/ratelimit version: %w", err)
	}
	got, err := os.ReadFile(bin + ".version")
	if _, serr := os.Stat(bin); serr != nil || err != nil || strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
		return "", fmt.Errorf("envoyproxy/ratelimit (%s) is not built in %s, or at another version (make deps builds it)", strings.TrimSpace(string(want)), bin)
	}
	return bin, nil
}

// caddy starts Debian's Caddy as a plain reverse proxy to up: the Go peer
// of the gateway's data plane, as nginx is the C one. Its admin endpoint
// and logs below errors are off, and its files (autosave) stay in the
// stack's directory, so no root is needed.
func (s *stack) caddy(up string, upErr error) started {
	if upErr != nil {
		return started{err: fmt.Errorf("no upstream: %w", upErr)}
	}
	bin, err := exec.LookPath("caddy")
	if err != nil {
		return started{err: errors.New("not measured: install Debian's caddy (apt-get install caddy)")}
	}
	port, err := freeport.Port()
	if err != nil {
		return started{err: err}
	}
	dir := filepath.Join(s.dir, "caddy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return started{err: err}
	}
	conf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(conf, []byte(caddyfile(dir, port, strings.TrimPrefix(up, "http://"))), 0o644); err != nil {
		return started{err: err}
	}
	p, err := s.startEnv("caddy (anchor)", []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir},
		bin, "run", "--config", conf, "--adapter", "caddyfile")
	if err != nil {
		return started{err: err}
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	return started{t: target{url: url, want: http.StatusOK, procs: []*proc{p}}, err: p.waitHTTP(url)}
}

// caddyfile proxies 127.0.0.1:port to upstream over plain HTTP; Caddy
// keeps its connections to upstream alive by default.
func caddyfile(dir string, port int, upstream string) string {
	return fmt.Sprintf(`{
	admin off
	auto_https off
	storage file_system %[1]s
	log {
		level ERROR
	}
}
http://127.0.0.1:%[2]d {
	bind 127.0.0.1
	reverse_proxy %[3]s
}
`, dir, port, upstream)
}
