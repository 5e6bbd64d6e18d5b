package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/gateway"
	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

func gatewayService() *service {
	return &service{
		name:       "gateway",
		summary:    "gateway (Envoy Gateway manifests: routes and BackendTrafficPolicy rate limits)",
		port:       gateway.DemoHTTPPort,
		ownSockets: true,
		notes: "The Gateway manifests in --config decide the ports (--port-offset shifts them all) and\n" +
			"protocols; the directory is reloaded when it changes, and a file that does not validate is\n" +
			"refused alone (its last good version stays, the other files apply). One JSON access-log line per request goes\n" +
			"to --access-log; the gateway's own logs go to stderr.\n\n" + gateway.Support + "\n\n",
		flags: gatewayFlags,
		args:  gatewayArgs,
	}
}

// gatewayArgs serve the manifests in DATA and count Global limits in the
// stack's Redis, when it has one. The demo's manifests are created on first
// start and route fortune.example.local to the stack's quote source, with the
// spec's example policy (3 per minute per x-user-id); a conformance run's
// folder holds the Gateway that scenarios attach their routes to.
func gatewayArgs(p *plan) []string {
	args := []string{"--config", gatewayConfigDir(p)}
	if p.demo {
		args = append(args, "--demo-quotes", loopbackAddr(p.urls["quotes"]))
	}
	if p.redisURL != "" {
		args = append(args, "--redis", p.redisURL)
	}
	return args
}

// gatewayConfigDir is the gateway's folder of manifests in the stack p.
func gatewayConfigDir(p *plan) string {
	if p.demo {
		return filepath.Join(p.dataDir, "gateway")
	}
	return filepath.Join(p.dataDir, "gateway-config")
}

func gatewayFlags(fs *flag.FlagSet, _ func(string) string) buildFunc {
	dir := fs.String("config", "", "directory of manifests (*.yaml, *.yml): Gateway, HTTPRoute, Backend, BackendTrafficPolicy, Secret (required)")
	redisURL := fs.String("redis", "", "Redis URL of the Global rate-limit counters, shared by every gateway using it, e.g. redis://127.0.0.1:6379/0 (default: this process's memory)")
	failClosed := fs.Bool("rate-limit-fail-closed", false, "while Redis (or the rate limit service) cannot be reached, refuse requests of limited routes (500, response flag RLSE) instead of letting them pass")
	service := fs.String("rate-limit-service", "", "grpc://HOST:PORT of an envoy.service.ratelimit.v3 service (envoyproxy/ratelimit, as Envoy Gateway deploys it):\nask it about Global rules, with the descriptors Envoy Gateway sends, instead of counting them (not with --redis)")
	serviceConfig := fs.String("rate-limit-service-config", "", "with --rate-limit-service: the folder the service reads its configuration from (its\nRUNTIME_ROOT/RUNTIME_SUBDIRECTORY/config, with RUNTIME_WATCH_ROOT=false and RUNTIME_IGNOREDOTFILES=true):\nthe gateway writes there what Envoy Gateway generates from the manifests, one gateway-*.yaml per domain, on every change")
	serviceTimeout := fs.Duration("rate-limit-service-timeout", ratelimit.ServiceTimeout, "how long to wait for the rate limit service's answer before the request passes (or fails closed);\nEnvoy's default is 20ms")
	offset := fs.Int("port-offset", 0, "added to every listener port, to run several gateways on one host (reference only; Envoy Gateway has no such flag)")
	accessLog := fs.String("access-log", "-", "where the JSON access log goes: - for stdout, or a file (appended to)")
	accessLogFlush := fs.Duration("access-log-flush", time.Second, "how long an access-log line may wait in memory to be written with others, as Envoy's\n--file-flush-interval-msec (10s by default there); 0 writes each line at once. Lines that wait are written at exit")
	demoQuotes := fs.String("demo-quotes", "", "IP:PORT of the quote source: fill an empty --config with the demo manifests routing to it, as reference up does (docker-compose.yml uses it)")
	return func(_ context.Context, env buildEnv) (*instance, error) {
		if *dir == "" {
			return nil, usageError{errors.New("--config is required (the directory of manifests)")}
		}
		created := false
		if *demoQuotes != "" {
			var err error
			if created, err = gateway.WriteDemo(*dir, *demoQuotes); err != nil {
				return nil, usageError{err}
			}
		}
		if *offset < -65535 || *offset > 65535 {
			return nil, usageError{fmt.Errorf("invalid --port-offset %d; valid: -65535 to 65535", *offset)}
		}
		if *redisURL != "" {
			if err := ratelimit.CheckRedisURL(*redisURL); err != nil {
				return nil, usageError{fmt.Errorf("--redis: %w", err)}
			}
		}
		if *service != "" {
			if err := ratelimit.CheckServiceURL(*service); err != nil {
				return nil, usageError{fmt.Errorf("--rate-limit-service: %w", err)}
			}
			if *redisURL != "" {
				return nil, usageError{errors.New("--redis and --rate-limit-service exclude each other: Global limits are counted in Redis or asked of the service")}
			}
		}
		if *serviceConfig != "" && *service == "" {
			return nil, usageError{errors.New("--rate-limit-service-config needs --rate-limit-service")}
		}
		if *serviceTimeout <= 0 {
			return nil, usageError{fmt.Errorf("invalid --rate-limit-service-timeout %s; valid: more than 0", *serviceTimeout)}
		}
		if *accessLogFlush < 0 {
			return nil, usageError{fmt.Errorf("invalid --access-log-flush %s; valid: 0 (each line at once) or more", *accessLogFlush)}
		}
		w, closeLog, err := openAccessLog(*accessLog, env.stdout)
		if err != nil {
			return nil, err
		}
		host := cmp.Or(flagValue(fs, "host"), "127.0.0.1")
		inst, err := startGateway(gateway.Options{
			Dir: *dir, Host: host, PortOffset: *offset, FreePorts: env.freePorts, RedisURL: *redisURL,
			FailClosed: *failClosed, AccessLog: w, AccessLogFlush: *accessLogFlush, Logger: env.log,
			RateLimitService: *service, RateLimitServiceConfig: *serviceConfig, RateLimitServiceTimeout: *serviceTimeout,
		}, closeLog)
		if err != nil {
			return nil, err
		}
		inst.hints = gatewayHints(*dir, created, inst.addrs, host)
		return inst, nil
	}
}

// openAccessLog opens the access log: stdout for "-", else a file appended to.
func openAccessLog(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "-" || path == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--access-log: %w", err)
	}
	return f, f.Close, nil
}

// startGateway starts the gateway; its listeners are bound by then.
func startGateway(o gateway.Options, closeLog func() error) (*instance, error) {
	g, err := gateway.Start(o)
	if err != nil {
		_ = closeLog()
		var errs manifest.Errors
		if errors.As(err, &errs) {
			return nil, fmt.Errorf("configuration %s refused:\n  %s", o.Dir, strings.ReplaceAll(err.Error(), "\n", "\n  "))
		}
		return nil, err
	}
	inst := &instance{failed: g.Err(), close: func() error {
		err := g.Close()
		return errors.Join(err, closeLog())
	}}
	for _, l := range g.Listeners() {
		inst.addrs = append(inst.addrs, l.Addr)
	}
	if ls := g.Listeners(); len(ls) > 0 {
		inst.url = listenerURL(o.Host, ls[0])
	}
	return inst, nil
}

// loopbackAddr is the ip:port of a service URL, localhost as 127.0.0.1; for
// a URL without one, the URL itself, which --demo-quotes then refuses.
func loopbackAddr(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Port() == "" {
		return rawURL
	}
	host := u.Hostname()
	if host == "localhost" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, u.Port())
}

func listenerURL(host string, l gateway.Listener) string {
	_, port, _ := net.SplitHostPort(l.Addr)
	scheme := "http"
	if l.Protocol == "HTTPS" {
		scheme = "https"
	}
	return strings.Replace(displayHostPort(host, port), "http://", scheme+"://", 1)
}

func gatewayHints(dir string, created bool, addrs []string, host string) []string {
	hints := []string{"configuration (" + createdState(created) + "): " + dir + "   (edit a file there: the gateway reloads it)"}
	if len(addrs) < 2 {
		return hints
	}
	_, httpPort, _ := net.SplitHostPort(addrs[0])
	_, httpsPort, _ := net.SplitHostPort(addrs[1])
	hdr := "-H 'Host: " + gateway.DemoHostname + "' -H '" + gateway.DemoUserHeader + ": alice' "
	return append(hints,
		"try 4 times (3 per minute per "+gateway.DemoUserHeader+"; the 4th gets 429):",
		"      curl -i "+hdr+displayHostPort(host, httpPort)+"/api/random",
		"      curl -ik --resolve "+gateway.DemoHostname+":"+httpsPort+":127.0.0.1 -H '"+gateway.DemoUserHeader+": bob' https://"+
			gateway.DemoHostname+":"+httpsPort+"/api/random",
		"access log: one JSON line per request on stdout",
	)
}

// createdState says whether up created a demo folder now or found it.
func createdState(created bool) string {
	if created {
		return "created now"
	}
	return "existing"
}
