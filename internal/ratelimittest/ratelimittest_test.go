package ratelimittest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/redistest"
)

// squat starts a plain HTTP server answering 404 to everything, as another
// test's server would, and makes Start pick its port on the calls for
// which taken is true: Start picks the HTTP port then the debug port at
// each start, so call 1 is the first start's HTTP port and call 2 its
// debug port. It returns how many requests the squatter got, so that a
// test can tell that Start did run into it.
func squat(t *testing.T, taken func(call int) bool) *atomic.Int64 {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	calls := 0
	orig := pickPort
	pickPort = func(tb testing.TB) int {
		calls++
		if taken(calls) {
			return port
		}
		return freeport.Get(tb)
	}
	t.Cleanup(func() { pickPort = orig })
	return &hits
}

// TestStartOnTakenPort: a port Start picked is taken by another program
// before the service binds it (the debug port: the service runs on without
// it; the HTTP port: the service exits). Start still returns a working
// service, whose /rlconfig is its own configuration, not the squatter's 404.
func TestStartOnTakenPort(t *testing.T) {
	for _, c := range []struct {
		name string
		call int
	}{{"HTTP port", 1}, {"debug port", 2}} {
		t.Run(c.name, func(t *testing.T) {
			redis := redistest.Start(t)
			hits := squat(t, func(call int) bool { return call == c.call })
			s := Start(t, redis.Addr())
			domain := "taken-" + strconv.Itoa(c.call)
			writeLimit(t, s, domain)
			s.WaitConfig(t, domain+".user_alice: unit=HOUR requests_per_unit=7")
			if hits.Load() == 0 {
				t.Fatal("the service never met the squatter: the test did not take its port")
			}
			if s.PID() == 0 {
				t.Fatal("no service process")
			}
		})
	}
}

// TestStartGivesUp: when every debug port Start picks is taken, it stops
// after a few starts, saying what it found on the port.
func TestStartGivesUp(t *testing.T) {
	redis := redistest.Start(t)
	squat(t, func(call int) bool { return call%2 == 0 })
	msg := failedStart(t, redis.Addr())
	if msg == "" {
		t.Fatal("Start did not fail with every debug port taken")
	}
	for _, want := range []string{"envoyproxy/ratelimit", "/rlconfig", "404"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not name %q:\n%s", want, msg)
		}
	}
}

// writeLimit gives the service one limit of 7 an hour in domain.
func writeLimit(t *testing.T, s *Service, domain string) {
	t.Helper()
	yaml := fmt.Sprintf("domain: %s\ndescriptors:\n  - key: user\n    value: alice\n    rate_limit: {unit: hour, requests_per_unit: 7}\n", domain)
	if err := os.WriteFile(filepath.Join(s.ConfigDir, domain+".yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fatalTB records a Fatal and ends only the goroutine that called it, so
// that a test can look at how Start fails.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatal(args ...any) { f.msg = fmt.Sprint(args...); runtime.Goexit() }
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failedStart is the failure of Start, "" when it succeeded.
func failedStart(t *testing.T, redisAddr string) string {
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f, redisAddr)
	}()
	<-done
	return f.msg
}
