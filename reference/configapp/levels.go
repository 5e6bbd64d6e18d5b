package configapp

import (
	"log/slog"
	"strings"
)

// rootLogger is the root logger's name, as Spring Boot shows it.
const rootLogger = "ROOT"

// level is a log level as Spring Boot names it, and its slog value.
type level struct {
	name  string
	value slog.Level
}

var (
	levelOff   = level{"OFF", slog.Level(1 << 30)}
	levelError = level{"ERROR", slog.LevelError}
	levelWarn  = level{"WARN", slog.LevelWarn}
	levelInfo  = level{"INFO", slog.LevelInfo}
	levelDebug = level{"DEBUG", slog.LevelDebug}
	levelTrace = level{"TRACE", slog.LevelDebug - 4}
	// allLevels is the "levels" list of GET /loggers, in Boot's order.
	allLevels = []level{levelOff, levelError, levelWarn, levelInfo, levelDebug, levelTrace}
)

// parseLevel reads a logging.level.* value as Spring Boot does: names in any
// case, FATAL as ERROR (Logback has no FATAL), and false as OFF, because
// YAML reads an unquoted OFF as the boolean false.
func parseLevel(text string) (level, bool) {
	switch t := strings.ToUpper(strings.TrimSpace(text)); t {
	case "FALSE":
		return levelOff, true
	case "FATAL":
		return levelError, true
	default:
		for _, l := range allLevels {
			if l.name == t {
				return l, true
			}
		}
	}
	return level{}, false
}

// levelOf names an slog level: the most verbose named level that still
// enables it (slog.Level(2) is shown as WARN, which is what it lets pass).
func levelOf(v slog.Level) level {
	for i := len(allLevels) - 1; i >= 0; i-- {
		if allLevels[i].value >= v {
			return allLevels[i]
		}
	}
	return levelOff
}

// levelTable holds the configured levels by logger name; the root logger is
// always present. A table is never modified once built.
type levelTable struct {
	configured map[string]level
}

func newLevelTable(root level) *levelTable {
	return &levelTable{configured: map[string]level{rootLogger: root}}
}

// canonicalLogger names the root logger ROOT whatever its spelling.
func canonicalLogger(name string) string {
	if strings.EqualFold(name, rootLogger) || name == "" {
		return rootLogger
	}
	return name
}

func (t *levelTable) configuredLevel(name string) (level, bool) {
	l, ok := t.configured[canonicalLogger(name)]
	return l, ok
}

// effective is the level of the nearest configured ancestor: a.b.c inherits
// from a.b, then a, then the root, as in Logback.
func (t *levelTable) effective(name string) level {
	for n := canonicalLogger(name); n != rootLogger; {
		if l, ok := t.configured[n]; ok {
			return l
		}
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[:i]
	}
	return t.configured[rootLogger]
}

func (t *levelTable) enabled(name string, v slog.Level) bool {
	return v >= t.effective(name).value
}
