package needs

import (
	"os"
	"strings"
	"testing"
)

func TestOnlyShortWithoutCISkips(t *testing.T) {
	for _, c := range []struct {
		short bool
		ci    string
		want  bool
	}{{true, "", true}, {true, "true", false}, {false, "", false}, {false, "true", false}} {
		if got := skipped(c.short, c.ci); got != c.want {
			t.Errorf("short %v, CI=%q: skipped %v, want %v", c.short, c.ci, got, c.want)
		}
	}
}

func TestTheMessageNamesEveryProgram(t *testing.T) {
	m := message([]string{"redis-server", "chromium"})
	for _, want := range []string{"needs redis-server and chromium", "-short", "make test"} {
		if !strings.Contains(m, want) {
			t.Errorf("%q lacks %q", m, want)
		}
	}
}

// A test that calls Program ends skipped exactly when Skipped says so: under -short without CI.
func TestProgramSkipsOnlyWhenSkipped(t *testing.T) {
	var inner *testing.T
	t.Run("needs-a-program", func(t *testing.T) {
		inner = t
		Program(t, "redis-server")
	})
	if inner.Skipped() != Skipped() {
		t.Fatalf("skipped %v, Skipped() %v (short %v, CI=%q)", inner.Skipped(), Skipped(), testing.Short(), os.Getenv("CI"))
	}
}
