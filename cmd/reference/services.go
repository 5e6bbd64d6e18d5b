package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
)

// services is the reference stack in start order. Adding a service is one
// entry here plus its file (see configserver.go).
var services = []*service{
	configServerService(),
	quotesService(),
	configAppService(),
	authServerService(),
	fortuneService(),
	greetingService(),
	gatewayService(),
}

// service is one runnable part of the reference stack. It is described
// once: flags says how `serve NAME` is configured, args how a stack
// configures it. Both wirings of the stack, `up` in one process (up.go) and
// `up --processes` (processes.go), run a service with the flags args gives,
// so the demo and a conformance run cannot drift apart.
type service struct {
	name    string
	summary string
	port    int    // the spec's default port
	notes   string // extra help, printed before the flags (environment variables)
	// flags declares the service's own `serve` flags and returns the
	// function that builds the service once they are parsed.
	flags func(fs *flag.FlagSet, getenv func(string) string) buildFunc
	// args are the service's own `serve` flags in the stack p: the URLs of
	// the services it calls, its data, Redis, the broker. Where it listens (--port,
	// --host, or --port-offset for a service with own sockets) is the
	// wiring's to add.
	args func(p *plan) []string
	// ownSockets is set for a service that binds the sockets its
	// configuration names (the gateway: its Gateway manifests name the
	// ports): serve declares no --port and up binds nothing for it.
	ownSockets bool
}

// plan is what a stack's services learn of each other, the input of every
// service's args. A wiring fills in urls as it learns them (up --processes
// learns the fortune service's port once it listens), so each service's args
// are taken when it starts, after the services it calls.
type plan struct {
	dataDir    string            // absolute
	urls       map[string]string // base URL of every service started so far, by name
	configRepo string            // the configuration server's repository (--uri)
	redisURL   string            // the gateways' shared counters; "" when every service runs in one process
	brokerURL  string            // the refresh bus (RabbitMQ); "" when every service runs in one process
	// demo is the stack of `reference up`: the demo repository and gateway
	// manifests created on first start, the authorization server's state
	// kept in dataDir. A conformance run starts from a fresh repository and
	// an authorization server in memory.
	demo bool
}

// buildFunc builds a service whose flags are parsed.
type buildFunc func(ctx context.Context, env buildEnv) (*instance, error)

// buildEnv is what a build takes from the command that runs it, beside the
// flags: what cannot be said on a command line.
type buildEnv struct {
	log    *slog.Logger // with the service's name
	stdout io.Writer    // the command's standard output: the gateway's access log "-"
	// oneProcess is set when every service runs in this process (up): a
	// configuration application without --bus refreshes over an
	// in-process bus rather than having none.
	oneProcess bool
	// freePorts makes a service with own sockets bind each of them on a
	// free port (tests of up, which give every service port 0).
	freePorts bool
}

// instance is a built service, ready to serve.
type instance struct {
	handler http.Handler
	close   func() error // optional; runs after the server stopped
	hints   []string     // printed by `up` under the service's URL
	// A service with own sockets serves from build on: addrs are where
	// (announced to the test hook), url its base URL, failed reports a
	// socket that stopped serving.
	addrs  []string
	url    string
	failed <-chan error
}

func lookupService(name string) *service {
	for _, s := range services {
		if s.name == name {
			return s
		}
	}
	return nil
}

func serviceNames() []string {
	names := make([]string, len(services))
	for i, s := range services {
		names[i] = s.name
	}
	return names
}
