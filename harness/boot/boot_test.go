package boot

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/needs"
)

// Booting runs `reference up`, whose target file the ordinary loader reads; stopping leaves no process of its
// group and no temporary directory behind, and the services' logs stay in the log folder.
func TestReferenceStartsAndStopsCleanly(t *testing.T) {
	needs.Program(t, "redis-server")
	logs := t.TempDir()
	st, err := Reference(context.Background(), Options{LogDir: logs})
	if err != nil {
		t.Fatal(err)
	}
	cs := st.Target.Services.ConfigServer
	if cs == nil || st.Target.Services.Gateway == nil || st.Target.Services.ConfigApp == nil {
		st.Stop()
		t.Fatalf("the target lacks services: %+v", st.Target.Services)
	}
	resp, err := http.Get(cs.URL + "/health")
	if err != nil {
		st.Stop()
		t.Fatal(err)
	}
	resp.Body.Close()
	group, dir := st.Group(), st.Dir()
	st.Stop()
	st.Stop() // twice is harmless
	if err := syscall.Kill(-group, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still has a process after Stop (kill 0: %v)", group, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left behind", dir)
	}
	for _, name := range []string{"reference.log", "authserver.log", "configserver.log", "gateway-2.log", "redis.log"} {
		if _, err := os.Stat(filepath.Join(logs, name)); err != nil {
			t.Errorf("log not kept: %v", err)
		}
	}
}

func TestABinaryThatCannotStartIsReportedWithItsLog(t *testing.T) {
	_, err := Reference(context.Background(), Options{Binary: "/bin/false", LogDir: t.TempDir()})
	if err == nil {
		t.Fatal("no error")
	}
	if want := "exited at start"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
