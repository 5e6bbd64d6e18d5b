// Package version names the build of a program of this module: its module version and the VCS revision it was
// built from, as the Go toolchain records them (go version -m shows the same).
package version

import (
	"runtime/debug"
)

// Revision is the short VCS revision of the build, with -dirty for uncommitted changes; "dev" when the build
// recorded none (go run outside a checkout, go test).
func Revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return revisionOf(info)
}

func revisionOf(info *debug.BuildInfo) string {
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) < 7 {
		return "dev"
	}
	if dirty {
		return rev[:7] + "-dirty"
	}
	return rev[:7]
}

// String is what --version prints: the program, its module version and its revision.
func String(program string) string {
	module := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		module = info.Main.Version
	}
	return program + " " + module + " " + Revision()
}
