package configapp

import (
	"context"
	"log/slog"
)

// loggerKey is the attribute that names a record's logger.
const loggerKey = "logger"

// Logger names of the application: the page controllers (the demo
// repository's logging.level.com.example applies to them) and the parts of
// the framework.
const (
	loggerPages    = "com.example.greeting"
	loggerConfig   = "configapp.config"
	loggerSecurity = "configapp.security"
	loggerBus      = "configapp.bus"
)

// levelHandler lets a record through when its logger's effective level
// allows it, as Logback does for Spring's logging.level.* keys. The levels
// are read at each call, so a refresh applies to every logger at once. The
// wrapped handler's own level is not consulted: the configuration decides.
type levelHandler struct {
	inner  slog.Handler
	levels func() *levelTable
	logger string // from a "logger" attribute added with With; "" is root
}

func (h *levelHandler) Enabled(_ context.Context, v slog.Level) bool {
	return h.levels().enabled(h.logger, v)
}

// Handle also honours a "logger" attribute on the record itself.
func (h *levelHandler) Handle(ctx context.Context, r slog.Record) error {
	name, found := h.logger, false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == loggerKey {
			name, found = a.Value.String(), true
			return false
		}
		return true
	})
	if found && !h.levels().enabled(name, r.Level) {
		return nil
	}
	return h.inner.Handle(ctx, r)
}

func (h *levelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.inner = h.inner.WithAttrs(attrs)
	for _, a := range attrs {
		if a.Key == loggerKey {
			c.logger = a.Value.String()
		}
	}
	return &c
}

func (h *levelHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.inner = h.inner.WithGroup(name)
	return &c
}
