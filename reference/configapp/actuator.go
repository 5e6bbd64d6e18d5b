package configapp

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// masked replaces the values of sensitive keys in /env.
const masked = "******"

// sensitiveEnds and sensitiveInside mark a key whose value /env hides, as
// Spring Boot 1.x's Sanitizer does: its keys "password", "secret", "key",
// "token" and "vcap_services" are the patterns ".*<key>$" (the end of the
// key), ".*credentials.*" matches anywhere, and all of them ignore case.
// A key that only contains one of the ends (keystore.type, passwordHint)
// is shown, as Spring shows it.
var (
	sensitiveEnds   = []string{"password", "secret", "key", "token", "vcap_services"}
	sensitiveInside = "credentials"
)

func (a *App) serveHealth(w http.ResponseWriter, _ *http.Request, _ *snapshot) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
}

// serveRefresh answers the changed keys (200), or 503 when the server could
// not be reached and 500 when the new configuration is invalid. The refresh
// runs to its end even if the caller hangs up.
func (a *App) serveRefresh(w http.ResponseWriter, r *http.Request, _ *snapshot) {
	keys, err := a.Refresh(context.WithoutCancel(r.Context()))
	if err != nil {
		writeError(w, r, statusOf(err), "Cannot refresh: "+err.Error()+"; the previous configuration stays in force")
		return
	}
	writeJSON(w, http.StatusOK, keys)
}

// serveEnv is Boot 1.x's /env: the active profiles, then one entry per
// property source, highest precedence first, keys in the server's order.
func (a *App) serveEnv(w http.ResponseWriter, _ *http.Request, s *snapshot) {
	var buf bytes.Buffer
	buf.WriteString(`{"profiles":`)
	_ = appendJSON(&buf, append([]string{}, a.opts.Profiles...)) // [] rather than null
	seen := make(map[string]bool)
	for _, src := range s.env.PropertySources {
		name := "configService:" + src.Name
		if seen[name] {
			continue // a repeated name would repeat a JSON key
		}
		seen[name] = true
		buf.WriteByte(',')
		_ = appendJSON(&buf, name)
		buf.WriteByte(':')
		appendMasked(&buf, &src.Source)
	}
	buf.WriteString("}\n")
	httpx.WriteBody(w, http.StatusOK, "application/json", buf.Bytes())
}

// serveActuatorEnv is Boot 2's /actuator/env: the active profiles, then the
// property sources, highest precedence first, each value as {"value": v}.
func (a *App) serveActuatorEnv(w http.ResponseWriter, _ *http.Request, s *snapshot) {
	var buf bytes.Buffer
	buf.WriteString(`{"activeProfiles":`)
	_ = appendJSON(&buf, append([]string{}, a.opts.Profiles...))
	buf.WriteString(`,"propertySources":[`)
	for i, src := range s.env.PropertySources {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"name":`)
		_ = appendJSON(&buf, "configserver:"+src.Name)
		buf.WriteString(`,"properties":`)
		appendMaskedAs(&buf, &src.Source, true)
		buf.WriteByte('}')
	}
	buf.WriteString("]}\n")
	httpx.WriteBody(w, http.StatusOK, "application/json", buf.Bytes())
}

func appendMasked(buf *bytes.Buffer, p *props) { appendMaskedAs(buf, p, false) }

// appendMaskedAs writes the properties as an object, each value as is or,
// wrapped, as {"value": v}; the values of sensitive keys masked.
func appendMaskedAs(buf *bytes.Buffer, p *props, wrapped bool) {
	buf.WriteByte('{')
	for i, k := range p.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		_ = appendJSON(buf, k)
		buf.WriteByte(':')
		if wrapped {
			buf.WriteString(`{"value":`)
		}
		if sensitive(k) {
			_ = appendJSON(buf, masked)
		} else {
			buf.Write(p.values[k]) // already compact JSON
		}
		if wrapped {
			buf.WriteByte('}')
		}
	}
	buf.WriteByte('}')
}

func sensitive(key string) bool {
	k := strings.ToLower(key)
	return strings.Contains(k, sensitiveInside) ||
		slices.ContainsFunc(sensitiveEnds, func(end string) bool { return strings.HasSuffix(k, end) })
}

// loggerLevels is Boot 1.5's logger description; configuredLevel is null
// for a logger that only inherits.
type loggerLevels struct {
	ConfiguredLevel *string `json:"configuredLevel"`
	EffectiveLevel  string  `json:"effectiveLevel"`
}

func describe(t *levelTable, name string) loggerLevels {
	d := loggerLevels{EffectiveLevel: t.effective(name).name}
	if l, ok := t.configuredLevel(name); ok {
		d.ConfiguredLevel = &l.name
	}
	return d
}

// serveLoggers lists the levels and the known loggers: the root, every
// configured one and the application's own.
func (a *App) serveLoggers(w http.ResponseWriter, _ *http.Request, s *snapshot) {
	t := s.settings.levels
	names := append(slices.Collect(maps.Keys(t.configured)), loggerPages, loggerConfig, loggerSecurity, loggerBus)
	loggers := make(map[string]loggerLevels, len(names))
	for _, n := range names {
		loggers[n] = describe(t, n)
	}
	levels := make([]string, len(allLevels))
	for i, l := range allLevels {
		levels[i] = l.name
	}
	writeJSON(w, http.StatusOK, map[string]any{"levels": levels, "loggers": loggers})
}

// serveLogger describes any logger name, configured or not: Logback
// creates loggers on demand, so every name has an effective level.
func (a *App) serveLogger(w http.ResponseWriter, r *http.Request, s *snapshot) {
	writeJSON(w, http.StatusOK, describe(s.settings.levels, r.PathValue(loggerName)))
}
