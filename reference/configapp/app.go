package configapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fortune-tck/fortune-tck/reference/bus"
)

// App is the configuration client application; it is an http.Handler.
type App struct {
	opts      Options
	logs      loggers
	client    *configClient
	serviceID string
	generated string // the password used while security.user.password is unset
	bootLevel *levelTable

	snap          atomic.Pointer[snapshot]
	refreshMu     sync.Mutex // one refresh at a time, so each diff is against its predecessor
	passwordShown atomic.Bool
	unsubscribe   func()
}

// New fetches the configuration (retrying while the server cannot be
// reached), binds it, and subscribes to the bus when there is one.
func New(ctx context.Context, opts Options) (*App, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	a := &App{
		opts:      opts,
		client:    newConfigClient(opts),
		serviceID: bus.ServiceID(opts.Name, opts.Profiles, opts.Port, opts.InstanceID),
		generated: newPassword(),
		bootLevel: newLevelTable(levelOf(opts.RootLevel)),
	}
	a.logs = newLoggers(slog.New(&levelHandler{inner: opts.Logger.Handler(), levels: a.levels}))
	if err := a.load(ctx); err != nil {
		return nil, err
	}
	if opts.Bus != nil {
		if a.unsubscribe, err = opts.Bus.Subscribe(ctx, a.onBusEvent); err != nil {
			return nil, fmt.Errorf("configapp: %w", err)
		}
	}
	a.logs.config.Info("Started", "name", opts.Name, "profiles", a.fetchProfiles(), "serviceId", a.serviceID, "bus", opts.Bus != nil)
	return a, nil
}

// load fetches and installs the first configuration.
func (a *App) load(ctx context.Context) error {
	env, err := a.client.fetchAtStart(ctx, a.opts, a.logs.config)
	if err != nil {
		return err
	}
	next, problems, err := newSnapshot(env, levelOf(a.opts.RootLevel))
	if err != nil {
		return fmt.Errorf("configapp: %s: %w", a.client.url, err)
	}
	a.snap.Store(next)
	a.installed(next, problems)
	return nil
}

// Refresh re-fetches and re-binds the configuration and returns the keys that
// changed, sorted. When the server cannot be reached or the new configuration
// cannot be bound, the previous one stays in force and the error says why.
func (a *App) Refresh(ctx context.Context) ([]string, error) {
	a.refreshMu.Lock()
	defer a.refreshMu.Unlock()
	env, err := a.client.fetch(ctx)
	if err != nil {
		return nil, a.refreshFailed(err)
	}
	next, problems, err := newSnapshot(env, levelOf(a.opts.RootLevel))
	if err != nil {
		return nil, a.refreshFailed(err)
	}
	keys := changedKeys(a.snap.Swap(next).merged, next.merged)
	a.installed(next, problems)
	a.logs.config.Info("Refresh keys changed: ["+strings.Join(keys, ", ")+"]", "keys", keys)
	return keys, nil
}

func (a *App) refreshFailed(err error) error {
	a.logs.config.Error("refresh failed; the previous configuration stays in force", "err", err)
	return err
}

// installed logs what was installed, as Spring's client does, and the
// generated password the first time it is in force.
func (a *App) installed(s *snapshot, problems []string) {
	log, env := a.logs.config, s.env
	log.Info("Located environment", "name", env.Name, "profiles", env.Profiles, "label", deref(env.Label),
		"version", deref(env.Version), "sources", len(env.PropertySources))
	for _, p := range problems {
		log.Error(p)
	}
	if s.settings.password == "" && a.passwordShown.CompareAndSwap(false, true) {
		// Spring's text, and the password followed by a space: whatever quoting
		// the log format adds comes after it, so "password: (\S+)" reads it whole.
		a.logs.security.Info("Using default security password: " + a.generated + " (user: " + s.settings.user + ")")
	}
}

// Close unsubscribes from the bus (waiting for a running bus refresh); it
// does not close the bus, which belongs to the caller.
func (a *App) Close() error {
	if a.unsubscribe != nil {
		a.unsubscribe()
	}
	return nil
}

// ServiceID is the instance's id on the bus: "<name>:<port>:<instance id>",
// with the active profiles after the name ("<name>:<profiles>:<port>:<id>").
func (a *App) ServiceID() string { return a.serviceID }

// GeneratedPassword is the password generated at start (and logged), in
// force while the configuration sets no security.user.password.
func (a *App) GeneratedPassword() string { return a.generated }

func (a *App) current() *snapshot { return a.snap.Load() }

// levels are the configured levels, or the root level before the first
// configuration arrives.
func (a *App) levels() *levelTable {
	if s := a.snap.Load(); s != nil {
		return s.settings.levels
	}
	return a.bootLevel
}

// loggers are the application's named loggers, filtered per name by the
// configured levels; made once, as With pre-formats the name.
type loggers struct{ pages, config, security, bus *slog.Logger }

func newLoggers(log *slog.Logger) loggers {
	named := func(name string) *slog.Logger { return log.With(loggerKey, name) }
	return loggers{named(loggerPages), named(loggerConfig), named(loggerSecurity), named(loggerBus)}
}

// fetchProfiles are the profiles asked for: "default" when none is active.
func (a *App) fetchProfiles() []string {
	if len(a.opts.Profiles) == 0 {
		return []string{"default"}
	}
	return a.opts.Profiles
}

// statusOf maps a Refresh error to the status /refresh answers with.
func statusOf(err error) int {
	if errors.As(err, new(*bindError)) {
		return http.StatusInternalServerError
	}
	return http.StatusServiceUnavailable
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
