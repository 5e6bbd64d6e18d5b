package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/bus"
	"github.com/fortune-tck/fortune-tck/reference/configapp"
)

func configAppService() *service {
	return &service{
		name:    "configapp",
		summary: "configuration client application (Spring Boot 1.x shape: /refresh, /bus/refresh, /env; or the actuator's, --paths actuator)",
		port:    8080,
		notes: "Environment:\n  " + configapp.ProfilesEnv +
			"  active profiles, comma-separated, read at start (unset: the \"default\" profile)\n\n",
		flags: configAppFlags,
		args:  configAppArgs,
	}
}

// configAppArgs fetch from the stack's configuration server and, when the
// stack has a message broker, refresh over its bus.
func configAppArgs(p *plan) []string {
	args := []string{"--config-url", p.urls["configserver"]}
	if p.brokerURL != "" {
		args = append(args, "--bus", p.brokerURL)
	}
	return args
}

func configAppFlags(fs *flag.FlagSet, getenv func(string) string) buildFunc {
	name := fs.String("name", configapp.DefaultName, "application name: selects the repository files <name>.yml and <name>-<profile>.yml")
	configURL := fs.String("config-url", configapp.DefaultConfigURL, "base URL of the configuration server")
	label := fs.String("label", "", "git label (branch, tag or commit id) to fetch (default: the server's default label)")
	brokerURL := fs.String("bus", "", "AMQP URL of the RabbitMQ broker of the refresh bus, Spring Cloud Bus's wire (exchange springCloudBus),\ne.g. amqp://guest:guest@127.0.0.1:5672/ (default: no bus; the bus refresh answers 503). A broker that is\ndown at start is tried again in the background: the application serves meanwhile")
	paths := fs.String("paths", configapp.PathsNames[0], "where the operational endpoints answer: boot1 (/refresh, /bus/refresh?destination=, /env, /loggers,\n/health: Spring Boot 1.x, the spec's) or actuator (/actuator/refresh, /actuator/busrefresh[/DESTINATION],\n/actuator/env, /actuator/loggers, /actuator/health: Spring Boot 2 and 3)")
	retries := fs.Int("start-retries", configapp.DefaultStartAttempts-1,
		"retries, with exponential backoff, while the configuration server cannot be reached at start (0: fail at once)")
	return func(ctx context.Context, env buildEnv) (*instance, error) {
		if *retries < 0 {
			return nil, usageError{fmt.Errorf("invalid --start-retries %d; valid: 0 or more", *retries)}
		}
		style, err := configapp.ParsePaths(*paths)
		if err != nil {
			return nil, usageError{fmt.Errorf("--paths: %w", err)}
		}
		opts := configapp.Options{
			Name:          *name,
			Profiles:      configapp.ParseProfiles(getenv(configapp.ProfilesEnv)),
			ConfigURL:     *configURL,
			Label:         *label,
			Port:          intFlag(fs, "port"),
			Logger:        env.log,
			RootLevel:     levelFlag(fs),
			StartAttempts: *retries + 1,
			Paths:         style,
		}
		b, err := configAppBus(ctx, *brokerURL, env)
		if err != nil {
			return nil, err
		}
		opts.Bus = b
		app, inst, err := newConfigApp(ctx, opts)
		if err != nil {
			return nil, err
		}
		inst.hints = configAppHints(ownURL(fs), app.GeneratedPassword(), opts.Profiles, style)
		return inst, nil
	}
}

// configAppBus is RabbitMQ's when --bus names it; else, with every service
// in one process, an in-process bus (the app is its only subscriber); else
// none. A malformed --bus is a usage error; an unreachable broker is not an
// error (the bus connects when it answers).
func configAppBus(ctx context.Context, brokerURL string, env buildEnv) (bus.Bus, error) {
	switch {
	case brokerURL != "":
		ctx, cancel := context.WithTimeout(ctx, brokerWait)
		defer cancel()
		b, err := bus.DialAMQP(ctx, brokerURL, env.log)
		if err != nil {
			return nil, usageError{fmt.Errorf("--bus: %w", err)}
		}
		return b, nil
	case env.oneProcess:
		return bus.NewLocal(env.log), nil
	}
	return nil, nil
}

// brokerWait bounds the wait for the broker at start: long enough for a
// reachable one to connect, so the bus is up when the application serves.
const brokerWait = 10 * time.Second

func configAppHints(url, password string, profiles []string, style configapp.Paths) []string {
	curl := "curl -u user:" + password + " "
	active := strings.Join(profiles, ",")
	if active == "" {
		active = "default (" + configapp.ProfilesEnv + "=dev selects the dev profile)"
	}
	refresh, busRefresh, env := "/refresh", "/bus/refresh", "/env"
	if style == configapp.PathsActuator {
		refresh, busRefresh, env = "/actuator/refresh", "/actuator/busrefresh", "/actuator/env"
	}
	return []string{
		"Using default security password: " + password + "  (user: user)",
		"try:  " + curl + url + "/ -H 'Accept: application/json'",
		"      " + curl + "-X POST " + url + refresh,
		"      " + curl + "-X POST " + url + busRefresh,
		"      " + curl + url + env,
		"profiles: " + active,
	}
}

// newConfigApp starts the app; on failure it closes the bus it was given.
func newConfigApp(ctx context.Context, opts configapp.Options) (*configapp.App, *instance, error) {
	app, err := configapp.New(ctx, opts)
	if err != nil {
		_ = closeBus(opts.Bus)
		return nil, nil, err
	}
	return app, &instance{handler: app, close: func() error {
		_ = app.Close()
		return closeBus(opts.Bus)
	}}, nil
}

func closeBus(b bus.Bus) error {
	if b == nil {
		return nil
	}
	return b.Close()
}

// intFlag reads an int flag that serve declares for every service (--port):
// the service id on the bus carries the port, as Spring's does.
func intFlag(fs *flag.FlagSet, name string) int {
	n, _ := strconv.Atoi(flagValue(fs, name))
	return n
}

// levelFlag reads --log-level, already validated: it becomes the root
// logger's level when the configuration sets none.
func levelFlag(fs *flag.FlagSet) slog.Level {
	var level slog.Level
	_ = level.UnmarshalText([]byte(flagValue(fs, "log-level")))
	return level
}
