package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The profile of each process covers the run: asked for before it starts,
// for at least as long, and written to one file per process.
func TestProfilerWritesOneFilePerProcessOverTheRun(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.String())
		_, _ = w.Write([]byte("profile of " + r.Host))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	pr := &profiler{dir: t.TempDir()}
	ran := false
	pr.during(1500*time.Millisecond, []*proc{{name: "gateway (no policy)", pprof: addr}}, func() { ran = true })
	if !ran {
		t.Fatal("the run did not run")
	}
	b, err := os.ReadFile(filepath.Join(pr.dir, "01-gateway-no-policy.pprof"))
	if err != nil || string(b) != "profile of "+addr {
		t.Fatalf("profile file: %q %v", b, err)
	}
	if len(asked) != 1 || asked[0] != "/debug/pprof/profile?seconds=2" {
		t.Fatalf("asked %v, want one profile of 2 s (the run, rounded up)", asked)
	}
}
