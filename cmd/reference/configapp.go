package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/bus"
	"github.com/fortune-tck/fortune-tck/reference/configapp"
)

func configAppService() *service {
	return &service{
		name:    "configapp",
		summary: "configuration client application (Spring Boot 1.x shape: /refresh, /bus/refresh, /env)",
		port:    8080,
		notes: "Environment:\n  " + configapp.ProfilesEnv +
			"  active profiles, comma-separated, read at start (unset: the \"default\" profile)\n\n",
		flags: configAppFlags,
		demo:  configAppDemo,
	}
}

func configAppFlags(fs *flag.FlagSet, getenv func(string) string) buildFunc {
	name := fs.String("name", configapp.DefaultName, "application name: selects the repository files <name>.yml and <name>-<profile>.yml")
	configURL := fs.String("config-url", configapp.DefaultConfigURL, "base URL of the configuration server")
	label := fs.String("label", "", "git label (branch, tag or commit id) to fetch (default: the server's default label)")
	redisURL := fs.String("redis", "", "Redis URL of the refresh bus, e.g. redis://127.0.0.1:6379/0 (default: no bus; POST /bus/refresh answers 503)")
	retries := fs.Int("start-retries", configapp.DefaultStartAttempts-1,
		"retries, with exponential backoff, while the configuration server cannot be reached at start (0: fail at once)")
	return func(ctx context.Context, log *slog.Logger) (*instance, error) {
		if *retries < 0 {
			return nil, usageError{fmt.Errorf("invalid --start-retries %d; valid: 0 or more", *retries)}
		}
		opts := configapp.Options{
			Name:          *name,
			Profiles:      configapp.ParseProfiles(getenv(configapp.ProfilesEnv)),
			ConfigURL:     *configURL,
			Label:         *label,
			Port:          intFlag(fs, "port"),
			Logger:        log,
			RootLevel:     levelFlag(fs),
			StartAttempts: *retries + 1,
		}
		if *redisURL != "" {
			b, err := bus.DialRedis(ctx, *redisURL, log)
			if err != nil {
				return nil, err
			}
			opts.Bus = b
		}
		_, inst, err := newConfigApp(ctx, opts)
		return inst, err
	}
}

// configAppDemo runs greeting-config against the demo configuration server,
// with an in-process bus.
func configAppDemo(ctx context.Context, st *stack) (*instance, error) {
	log := st.log.With("service", "configapp")
	self := st.urls["configapp"]
	profiles := configapp.ParseProfiles(st.getenv(configapp.ProfilesEnv))
	app, inst, err := newConfigApp(ctx, configapp.Options{
		Profiles:  profiles,
		ConfigURL: st.urls["configserver"],
		Port:      portOf(self),
		Logger:    log,
		RootLevel: st.level,
		Bus:       bus.NewLocal(log),
	})
	if err != nil {
		return nil, err
	}
	inst.hints = configAppHints(self, app.GeneratedPassword(), profiles)
	return inst, nil
}

func configAppHints(url, password string, profiles []string) []string {
	curl := "curl -u user:" + password + " "
	active := strings.Join(profiles, ",")
	if active == "" {
		active = "default (" + configapp.ProfilesEnv + "=dev selects the dev profile)"
	}
	return []string{
		"Using default security password: " + password + "  (user: user)",
		"try:  " + curl + url + "/ -H 'Accept: application/json'",
		"      " + curl + "-X POST " + url + "/refresh",
		"      " + curl + "-X POST " + url + "/bus/refresh",
		"      " + curl + url + "/env",
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
	if f := fs.Lookup(name); f != nil {
		n, _ := strconv.Atoi(f.Value.String())
		return n
	}
	return 0
}

// levelFlag reads --log-level, already validated: it becomes the root
// logger's level when the configuration sets none.
func levelFlag(fs *flag.FlagSet) slog.Level {
	var level slog.Level
	if f := fs.Lookup("log-level"); f != nil {
		_ = level.UnmarshalText([]byte(f.Value.String()))
	}
	return level
}

func portOf(rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(u.Port())
	return n
}
