package config

import "testing"

// TestDebugLine checks which log lines count as written at level DEBUG: the
// level where the common loggers put it, not the word in a message.
func TestDebugLine(t *testing.T) {
	for line, want := range map[string]bool{
		"2026-11-25 10:00:00.000 DEBUG 4242 --- [main] c.e.tck.Greeting : fetched":              true,
		"10:00:00.123 [http-nio-8080-exec-1] DEBUG com.example.tck.Greeting - fetched":          true,
		"time=2026-11-25T10:00:00Z level=DEBUG msg=fetched":                                     true,
		`{"time":"2026-11-25T10:00:00Z","level":"DEBUG","msg":"fetched"}`:                       true,
		"DEBUG:com.example.tck:fetched":                                                         true,
		"[DEBUG] fetched":                                                                       true,
		"2026-11-25 10:00:00.000  INFO 4242 --- [main] o.s.c.e.RefreshListener : keys changed":  false,
		"time=2026-11-25T10:00:00Z level=INFO msg=\"logging.level.root set to DEBUG\"":          false,
		`{"level":"INFO","msg":"root logger now at DEBUG"}`:                                     false,
		"2026-11-25 10:00:00.000  INFO 4242 --- [main] c.e.tck.Greeting : now logging at DEBUG": false,
		"DEBUGGING is off": false,
	} {
		if got := debugLine.MatchString(line); got != want {
			t.Errorf("%q: a DEBUG line %v, want %v", line, got, want)
		}
	}
}
