package configapp

import (
	"context"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/redistest"
	"github.com/fortune-tck/fortune-tck/reference/bus"
)

// busDebug shows the bus decisions in the log, so tests can wait for them.
const busDebug = "logging:\n  level:\n    configapp.bus: DEBUG\n"

// startOnRedis starts an instance with a Redis connection of its own, as a
// separate process would have.
func startOnRedis(tb testing.TB, redisURL string, opts Options) *instance {
	tb.Helper()
	b, err := bus.DialRedis(context.Background(), redisURL, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() }) // runs after the app's cleanup
	opts.Bus = b
	return startApp(tb, opts)
}

func TestBusRefreshOverRedisRefreshesEveryInstanceOnce(t *testing.T) {
	rs := redistest.Start(t)
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v1\n"})
	cs := startConfigServer(t, o)
	a := startOnRedis(t, rs.URL(), Options{ConfigURL: cs.URL, Port: 1})
	b := startOnRedis(t, rs.URL(), Options{ConfigURL: cs.URL, Port: 2})
	o.commit(map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v2\n"})

	ans := a.post("/bus/refresh")
	if ans.status != 204 || len(ans.body) != 0 {
		t.Fatalf("POST /bus/refresh: %d %s", ans.status, ans.body)
	}
	if m := a.greeting(); m["msg"] != "v2" {
		t.Fatalf("the origin serves %q once the POST returned", m["msg"])
	}
	waitFor(t, "the other instance to refresh", func() bool { return b.greeting()["msg"] == "v2" })
	waitFor(t, "the origin to see its own event", func() bool { return len(a.logs.Lines("ignoring the echo")) == 1 })
	for name, in := range map[string]*instance{"origin": a, "other": b} {
		if n := len(in.logs.Lines("Refresh keys changed: [greeting.message]")); n != 1 {
			t.Errorf("%s refreshed %d times, want once:\n%s", name, n, in.logs)
		}
	}
	if lines := b.logs.Lines("refreshed by a bus event"); len(lines) != 1 || !strings.Contains(lines[0], a.app.ServiceID()) {
		t.Errorf("other instance's log:\n%s", b.logs)
	}
}

func TestBusRefreshDestination(t *testing.T) {
	files := func(v string) map[string]string {
		return map[string]string{"app.yml": open + busDebug + "greeting:\n  message: " + v + "\n", "other.yml": open + busDebug + "greeting:\n  message: " + v + "\n"}
	}
	o := newOrigin(t, files("v1"))
	cs := startConfigServer(t, o)
	local := bus.NewLocal(nil)
	defer local.Close()
	a1 := startApp(t, Options{ConfigURL: cs.URL, Name: "app", Port: 1, Bus: local})
	a2 := startApp(t, Options{ConfigURL: cs.URL, Name: "app", Port: 2, Bus: local})
	other := startApp(t, Options{ConfigURL: cs.URL, Name: "other", Port: 3, Bus: local})
	o.commit(files("v2"))

	if ans := a1.post("/bus/refresh?destination=app:2"); ans.status != 204 {
		t.Fatalf("%d %s", ans.status, ans.body)
	}
	waitFor(t, "app:2 to refresh", func() bool { return a2.greeting()["msg"] == "v2" })
	waitFor(t, "other to skip the event", func() bool { return len(other.logs.Lines("ignoring a bus event for other instances")) == 1 })
	if a1.greeting()["msg"] != "v1" || other.greeting()["msg"] != "v1" {
		t.Fatal("an instance outside the destination refreshed")
	}

	if ans := a1.post("/bus/refresh?destination=other"); ans.status != 204 {
		t.Fatalf("%d %s", ans.status, ans.body)
	}
	waitFor(t, "other to refresh", func() bool { return other.greeting()["msg"] == "v2" })
	if a1.greeting()["msg"] != "v1" {
		t.Fatal("the origin refreshed for a destination that excludes it")
	}
	if a := a1.post("/bus/refresh?destination=" + strings.Repeat("x", maxDestination+1)); a.status != 400 {
		t.Fatalf("long destination: %d", a.status)
	}
}

func TestBusIgnoresEventsOfOtherTypes(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v1\n"})
	local := bus.NewLocal(nil)
	defer local.Close()
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL, Bus: local})
	o.commit(map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v2\n"})
	ack := bus.Event{Type: "AckRemoteApplicationEvent", OriginService: "x:1:y", ID: "1"}
	if err := local.Publish(context.Background(), ack); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ack to be ignored", func() bool { return len(in.logs.Lines("ignoring a bus event of another type")) == 1 })
	if in.greeting()["msg"] != "v1" {
		t.Fatal("refreshed on an ack")
	}
	if err := local.Publish(context.Background(), bus.NewRefresh("spring-app:8080:abc", "")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a foreign refresh event to apply", func() bool { return in.greeting()["msg"] == "v2" })
}

func TestBusRefreshWithoutABus(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"greeting-config.yml": open}))
	in := startApp(t, Options{ConfigURL: cs.URL})
	a := in.post("/bus/refresh")
	var e errorBody
	a.json(t, &e)
	if a.status != 503 || !strings.Contains(e.Message, "No bus is bound") {
		t.Fatalf("%d %s", a.status, a.body)
	}
}

func TestBusRefreshWhenRedisIsDown(t *testing.T) {
	rs := redistest.Start(t)
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: v1\n"})
	in := startOnRedis(t, rs.URL(), Options{ConfigURL: startConfigServer(t, o).URL})
	o.commit(map[string]string{"greeting-config.yml": open + "greeting:\n  message: v2\n"})
	rs.Stop()
	a := in.post("/bus/refresh")
	if a.status != 503 || !strings.Contains(string(a.body), "Cannot publish the refresh event") {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if in.greeting()["msg"] != "v1" {
		t.Fatal("refreshed although the event could not be published")
	}
}
