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
)

// Booting starts real processes that answer; stopping leaves no process and no temporary directory behind.
func TestReferenceStartsAndStopsCleanly(t *testing.T) {
	st, err := Reference(context.Background(), Options{LogDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cs := st.Target.Services.ConfigServer
	if cs == nil {
		st.Stop()
		t.Fatal("no config server in the target")
	}
	resp, err := http.Get(cs.URL + "/health")
	if err != nil {
		st.Stop()
		t.Fatal(err)
	}
	resp.Body.Close()
	// The fortune service and the configuration server took --port 0 and told their URL in a ready file.
	for name, url := range map[string]string{"fortune": st.Target.Services.Fortune.URL, "configserver": cs.URL} {
		b, err := os.ReadFile(filepath.Join(st.Dir(), name+".ready"))
		if err != nil || strings.TrimSpace(string(b)) != url {
			t.Errorf("%s: ready file %q (%v), target URL %s", name, b, err, url)
		}
	}
	pids, dir := st.PIDs(), st.Dir()
	st.Stop()
	st.Stop() // twice is harmless
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after Stop (kill 0: %v)", pid, err)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left behind", dir)
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
