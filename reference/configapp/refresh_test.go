package configapp

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestRefreshAppliesChangesAndListsTheKeys(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: one\nquoteServiceURL: http://a/\nremoved: x\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	o.commit(map[string]string{"greeting-config.yml": open + "greeting:\n  message: one\n  displayFortune: true\nquoteServiceURL: http://b/\nadded: 1\n"})
	if m := in.greeting(); m["fortune"] != "" {
		t.Fatal("a running client must keep its values until refreshed (spec 3.3.1)")
	}
	a := in.post("/refresh")
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" ||
		string(a.body) != `["added","greeting.displayFortune","quoteServiceURL","removed"]`+"\n" {
		t.Fatalf("%d %s %s", a.status, a.header, a.body)
	}
	if m := in.greeting(); m["fortune"] == "" || m["msg"] != "one" {
		t.Fatalf("after refresh: %v", m)
	}
	if a := in.get("/random-quote"); !strings.Contains(string(a.body), `"uri":"http://b/"`) {
		t.Fatalf("quote uri: %s", a.body)
	}
	if a := in.post("/refresh"); string(a.body) != "[]\n" {
		t.Fatalf("nothing changed: %s", a.body)
	}
	if got := in.logs.Lines("Refresh keys changed: [added, greeting.displayFortune, quoteServiceURL, removed]"); len(got) != 1 {
		t.Fatalf("log:\n%s", in.logs)
	}
}

func TestRefreshTypedChangesCount(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "a: true\nb: 1\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	o.commit(map[string]string{"greeting-config.yml": open + "a: 'true'\nb: 1\n"})
	if keys := in.refresh(); !slices.Equal(keys, []string{"a"}) {
		t.Fatalf("true -> \"true\" is a change, 1 -> 1 is not: %q", keys)
	}
}

func TestRefreshAppliesLogLevels(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	in.greeting()
	if lines := in.logs.Lines("rendering page greeting"); len(lines) != 0 {
		t.Fatalf("DEBUG logged at the default INFO level: %q", lines)
	}
	checkLogger(t, in, "com.example.greeting", nil, "INFO")

	o.commit(map[string]string{"greeting-config.yml": open + "logging:\n  level:\n    com.example: DEBUG\n"})
	if keys := in.refresh(); !slices.Equal(keys, []string{"logging.level.com.example"}) {
		t.Fatalf("keys %q", keys)
	}
	checkLogger(t, in, "com.example", ptr("DEBUG"), "DEBUG")
	checkLogger(t, in, "com.example.greeting", nil, "DEBUG")
	checkLogger(t, in, "com", nil, "INFO")
	in.greeting()
	lines := in.logs.Lines("rendering page greeting")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=DEBUG") || !strings.Contains(lines[0], "logger=com.example.greeting") {
		t.Fatalf("want one DEBUG line after the refresh:\n%s", in.logs)
	}

	o.commit(map[string]string{"greeting-config.yml": open + "logging:\n  level:\n    com.example: DEBUG\n    com.example.greeting: WARN\n    root: ERROR\n"})
	in.refresh()
	checkLogger(t, in, "com.example.greeting", ptr("WARN"), "WARN")
	checkLogger(t, in, "ROOT", ptr("ERROR"), "ERROR")
	checkLogger(t, in, "org.other", nil, "ERROR")
	in.greeting()
	if n := len(in.logs.Lines("rendering page greeting")); n != 1 {
		t.Fatalf("WARN must hide DEBUG again: %d lines", n)
	}
	// configapp.config inherits ERROR from the root now: the second
	// refresh's own INFO line is already filtered.
	if n := len(in.logs.Lines("Refresh keys changed")); n != 1 {
		t.Fatalf("%d refresh lines, want the first refresh's only:\n%s", n, in.logs)
	}
}

func TestInvalidLevelIsLoggedAndSkipped(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "logging:\n  level:\n    a: LOUD\n    b: OFF\n    c: fatal\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	if len(in.logs.Lines("Cannot set level: LOUD for 'a'")) != 1 {
		t.Fatalf("log:\n%s", in.logs)
	}
	checkLogger(t, in, "a", nil, "INFO")
	checkLogger(t, in, "b", ptr("OFF"), "OFF") // YAML reads OFF as false
	checkLogger(t, in, "c", ptr("ERROR"), "ERROR")
}

func TestProfileFileAddedLaterTakesEffectOnRefresh(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: generic\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL, Profiles: []string{"dev"}})
	o.commit(map[string]string{"greeting-config-dev.yml": "greeting:\n  message: dev\n"})
	if keys := in.refresh(); !slices.Equal(keys, []string{"greeting.message"}) {
		t.Fatalf("keys %q", keys)
	}
	if m := in.greeting(); m["msg"] != "dev" {
		t.Fatalf("model %v", m)
	}
}

func TestRefreshWhileTheServerIsDownKeepsTheConfiguration(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: old\n"})
	cs := startConfigServer(t, o)
	in := startApp(t, Options{ConfigURL: cs.URL})
	o.commit(map[string]string{"greeting-config.yml": open + "greeting:\n  message: new\n"})
	cs.down.Store(true)
	a := in.post("/refresh")
	var e errorBody
	a.json(t, &e)
	if a.status != 503 || e.Status != 503 || e.Path != "/refresh" ||
		!strings.Contains(e.Message, "configuration server unreachable at "+cs.URL) || !strings.Contains(e.Message, "previous configuration stays in force") {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if m := in.greeting(); m["msg"] != "old" {
		t.Fatalf("model %v", m)
	}
	cs.down.Store(false)
	if keys := in.refresh(); !slices.Equal(keys, []string{"greeting.message"}) || in.greeting()["msg"] != "new" {
		t.Fatalf("after recovery: %q", keys)
	}
}

func TestRefreshWithAnInvalidConfigurationKeepsTheOldOne(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: old\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	o.commit(map[string]string{"greeting-config.yml": open + "greeting:\n  message: new\n  displayFortune: maybe\n"})
	a := in.post("/refresh")
	if a.status != 500 || !strings.Contains(string(a.body), `greeting.displayFortune is \"maybe\"`) {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if m := in.greeting(); m["msg"] != "old" {
		t.Fatalf("half applied: %v", m)
	}
	o.commit(map[string]string{"greeting-config.yml": "greeting:\n  message: x\n: : :\n"})
	if a := in.post("/refresh"); a.status != 503 || !strings.Contains(string(a.body), "answered 500") {
		t.Fatalf("unparsable file: %d %s", a.status, a.body)
	}
}

// TestConcurrentRefreshes commits and refreshes from many goroutines while
// pages are read: every answer must be whole, and the final state the last
// commit's.
func TestConcurrentRefreshes(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: v0\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	var wg sync.WaitGroup
	var commitMu sync.Mutex
	for i := range 8 {
		wg.Go(func() {
			commitMu.Lock()
			o.commit(map[string]string{"greeting-config.yml": open + fmt.Sprintf("greeting:\n  message: v%d\n  displayFortune: true\n", i+1)})
			commitMu.Unlock()
			if _, err := in.app.Refresh(context.Background()); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if a := in.get("/"); a.status != http.StatusOK {
				t.Errorf("GET /: %d", a.status)
			}
		})
	}
	wg.Wait()
	in.refresh()
	head, _ := o.repo.Head()
	commit, _ := o.repo.CommitObject(head.Hash())
	file, _ := commit.File("greeting-config.yml")
	content, _ := file.Contents()
	if m := in.greeting(); !strings.Contains(content, "message: "+m["msg"]+"\n") {
		t.Fatalf("served %q, last commit has:\n%s", m["msg"], content)
	}
}

func checkLogger(t *testing.T, in *instance, name string, configured *string, effective string) {
	t.Helper()
	var got struct {
		ConfiguredLevel *string `json:"configuredLevel"`
		EffectiveLevel  string  `json:"effectiveLevel"`
	}
	a := in.get("/loggers/" + name)
	a.json(t, &got)
	same := (got.ConfiguredLevel == nil) == (configured == nil) && (configured == nil || *got.ConfiguredLevel == *configured)
	if a.status != 200 || !same || got.EffectiveLevel != effective {
		t.Fatalf("GET /loggers/%s: %d %s", name, a.status, a.body)
	}
}

func ptr(s string) *string { return &s }
