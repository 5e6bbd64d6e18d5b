package configapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

func TestStartFetchesNameProfilesAndLabel(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"app.yml":         "greeting:\n  message: generic\n  displayFortune: true\n",
		"app-dev.yml":     "greeting:\n  message: dev\n",
		"app-db.yml":      "greeting:\n  message: db\n",
		"application.yml": "greeting:\n  message: shared\nquoteServiceURL: http://q.test/\n",
	})
	cs := startConfigServer(t, o)
	var paths []string
	var mu atomic.Pointer[[]string]
	mu.Store(&paths)
	spy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := append(*mu.Load(), r.URL.RawPath+"|"+r.URL.Path)
		mu.Store(&p)
		cs.Config.Handler.ServeHTTP(w, r)
	}))
	defer spy.Close()
	in := startApp(t, Options{Name: "app", Profiles: []string{"dev", "db"}, ConfigURL: spy.URL, Label: "master"})
	if got := *mu.Load(); len(got) != 1 || got[0] != "|/app/dev,db/master" {
		t.Fatalf("requests %q", got)
	}
	m := in.greeting()
	if m["msg"] != "db" || m["fortune"] == "" {
		t.Fatalf("the last profile must win and the generic file apply: %v", m)
	}
	if a := in.get("/random-quote"); !strings.Contains(string(a.body), `"uri":"http://q.test/"`) {
		t.Fatalf("shared application.yml not applied: %s", a.body)
	}
}

func TestEnvironmentURL(t *testing.T) {
	tests := []struct {
		name     string
		profiles []string
		label    string
		want     string
	}{
		{"app", nil, "", "http://c/app/default"},
		{"app", []string{"dev"}, "", "http://c/app/dev"},
		{"app", []string{"dev", "db"}, "v1", "http://c/app/dev,db/v1"},
		{"app", nil, "feature/x", "http://c/app/default/feature(_)x"},
		{"my app", []string{"a b"}, "", "http://c/my%20app/a%20b"},
	}
	for _, tt := range tests {
		if got := environmentURL("http://c", tt.name, tt.profiles, tt.label); got != tt.want {
			t.Errorf("environmentURL(%q, %q, %q) = %q, want %q", tt.name, tt.profiles, tt.label, got, tt.want)
		}
	}
}

func TestParseProfiles(t *testing.T) {
	for in, want := range map[string]string{"": "", "dev": "dev", " dev , db ,": "dev|db", ",,": ""} {
		if got := strings.Join(ParseProfiles(in), "|"); got != want {
			t.Errorf("ParseProfiles(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStartRetriesThenFailsNamingTheURL(t *testing.T) {
	addr := unreachable
	logs := &syncbuf.Buffer{}
	start := time.Now()
	_, err := New(context.Background(), Options{
		ConfigURL: "http://" + addr, StartAttempts: 3, RetryInitial: 40 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		Logger: newTextLogger(logs),
	})
	if err == nil || !strings.Contains(err.Error(), "http://"+addr+"/greeting-config/default") || !strings.Contains(err.Error(), "3 attempt(s)") {
		t.Fatalf("error: %v", err)
	}
	if elapsed := time.Since(start); elapsed < 90*time.Millisecond {
		t.Fatalf("gave up after %s; want waits of 40ms then 50ms", elapsed)
	}
	if n := len(logs.Lines("retrying")); n != 2 {
		t.Fatalf("%d retry warnings, want 2:\n%s", n, logs)
	}
}

func TestStartWaitsForALateServer(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "greeting:\n  message: late\n"})
	cs := startConfigServer(t, o)
	cs.down.Store(true) // connections are dropped unanswered, as by a server still starting
	time.AfterFunc(150*time.Millisecond, func() { cs.down.Store(false) })
	logs := &syncbuf.Buffer{}
	app, err := New(context.Background(), Options{ConfigURL: cs.URL, RetryInitial: 50 * time.Millisecond, StartAttempts: 10, Logger: newTextLogger(logs)})
	if err != nil {
		t.Fatal(err)
	}
	if got := app.current().settings.message; got != "late" || len(logs.Lines("retrying")) == 0 {
		t.Fatalf("message %q after:\n%s", got, logs)
	}
}

func TestStartFailsAtOnceWhenTheServerRefuses(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"a.yml": "k: v\n"}))
	_, err := New(context.Background(), fastStart(Options{ConfigURL: cs.URL, Label: "nope"}))
	if err == nil || !strings.Contains(err.Error(), "1 attempt(s)") || !strings.Contains(err.Error(), "No such label: nope") ||
		!strings.Contains(err.Error(), "answered 404") {
		t.Fatalf("error: %v", err)
	}
}

func TestStartRejectsAnInvalidConfiguration(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"greeting-config.yml": "greeting:\n  displayFortune: maybe\n"}))
	_, err := New(context.Background(), fastStart(Options{ConfigURL: cs.URL}))
	if err == nil || !strings.Contains(err.Error(), `greeting.displayFortune is "maybe", want true or false`) {
		t.Fatalf("error: %v", err)
	}
}

func TestStartCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := New(ctx, Options{ConfigURL: "http://" + unreachable, RetryInitial: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "start cancelled") {
		t.Fatalf("error: %v", err)
	}
}

func TestInvalidConfigURL(t *testing.T) {
	for _, u := range []string{"localhost:8888", "ftp://x", "http://", "::"} {
		if _, err := New(context.Background(), Options{ConfigURL: u}); err == nil || !strings.Contains(err.Error(), "invalid configuration server URL") {
			t.Errorf("%q: %v", u, err)
		}
	}
}

func TestDefaults(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"other.yml": "k: v\n"}))
	in := startApp(t, Options{ConfigURL: cs.URL})
	s := in.app.current().settings
	if s.displayFortune || s.message != "Greetings!!!" || s.quoteURL != "" || !s.basicEnabled || !s.managementEnabled || s.user != "user" || s.password != "" {
		t.Fatalf("defaults: %+v", s)
	}
	if id := in.app.ServiceID(); !strings.HasPrefix(id, "greeting-config:0:") || len(id) != len("greeting-config:0:")+32 {
		t.Fatalf("service id %q", id)
	}
}
