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

// service is one runnable part of the reference stack.
type service struct {
	name    string
	summary string
	port    int    // the spec's default port
	notes   string // extra help, printed before the flags (environment variables)
	// flags declares the service's own `serve` flags and returns the
	// function that builds the service once they are parsed.
	flags func(fs *flag.FlagSet, getenv func(string) string) buildFunc
	// demo builds the service for `up`, with embedded defaults.
	demo func(ctx context.Context, st *stack) (*instance, error)
	// ownSockets is set for a service that binds the sockets its
	// configuration names (the gateway: its Gateway manifests name the
	// ports): serve declares no --port and up binds nothing for it.
	ownSockets bool
}

type buildFunc func(ctx context.Context, log *slog.Logger) (*instance, error)

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

// stack is what `up` shares with the services it builds.
type stack struct {
	dataDir string
	log     *slog.Logger
	level   slog.Level // the --log-level of up
	getenv  func(string) string
	urls    map[string]string // base URL of every service, by name
	host    string            // the address every service binds
	stdout  io.Writer         // up's standard output (the gateway's access log)
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
