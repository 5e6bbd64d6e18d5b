package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestRevisionIsShortAndSaysWhenTheTreeWasDirty(t *testing.T) {
	info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	if got := revisionOf(info); got != "0123456-dirty" {
		t.Errorf("revision %q, want 0123456-dirty", got)
	}
	if got := revisionOf(&debug.BuildInfo{}); got != "dev" {
		t.Errorf("no revision recorded: %q, want dev", got)
	}
	if got := String("tck"); !strings.HasPrefix(got, "tck ") || len(strings.Fields(got)) != 3 {
		t.Errorf("String = %q, want program, module version and revision", got)
	}
}
