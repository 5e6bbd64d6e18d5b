package configapp

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
	"github.com/fortune-tck/fortune-tck/reference/bus"
)

func TestMain(m *testing.M) { os.Exit(rabbittest.Main(m)) }

// busDebug shows the bus decisions in the log, so tests can wait for them.
const busDebug = "logging:\n  level:\n    configapp.bus: DEBUG\n"

// dialAMQP is a bus connection of its own, as a separate process would have; closed after the app using it.
func dialAMQP(tb testing.TB, url string) *bus.AMQP {
	tb.Helper()
	b, err := bus.DialAMQP(context.Background(), url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	return b
}

// startOnAMQP starts an instance with a broker connection of its own.
func startOnAMQP(tb testing.TB, url string, opts Options) *instance {
	tb.Helper()
	opts.Bus = dialAMQP(tb, url)
	return startApp(tb, opts)
}

// events collects what a bus carries.
type events chan bus.Event

func watchBus(tb testing.TB, b bus.Bus) events {
	tb.Helper()
	c := make(events, 64)
	unsubscribe, err := b.Subscribe(context.Background(), func(e bus.Event) { c <- e })
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(unsubscribe)
	return c
}

// acks waits for the acknowledgements of the event id, one per origin in want, and fails on any other within
// a moment after.
func (c events) acks(tb testing.TB, id string, want ...string) {
	tb.Helper()
	got := map[string]bool{}
	deadline := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case e := <-c:
			if e.Type == bus.AckType && e.AckID == id {
				got[e.OriginService] = true
			}
		case <-deadline:
			tb.Fatalf("acknowledgements of %s from %v, want %v", id, got, want)
		}
	}
	for _, w := range want {
		if !got[w] {
			tb.Fatalf("acknowledgements of %s from %v, want %v", id, got, want)
		}
	}
	c.noAck(tb, id, 200*time.Millisecond)
}

func (c events) noAck(tb testing.TB, id string, within time.Duration) {
	tb.Helper()
	deadline := time.After(within)
	for {
		select {
		case e := <-c:
			if e.Type == bus.AckType && e.AckID == id {
				tb.Fatalf("unexpected acknowledgement %+v", e)
			}
		case <-deadline:
			return
		}
	}
}

// refreshID is the id of the next refresh event the bus carries.
func (c events) refreshID(tb testing.TB) string {
	tb.Helper()
	for {
		select {
		case e := <-c:
			if e.Type == bus.RefreshType {
				return e.ID
			}
		case <-time.After(10 * time.Second):
			tb.Fatal("no refresh event on the bus")
		}
	}
}

func TestBusRefreshOverRabbitMQRefreshesEveryInstanceOnceAndEachAcknowledges(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v1\n"})
	cs := startConfigServer(t, o)
	a := startOnAMQP(t, url, Options{ConfigURL: cs.URL, Port: 1})
	b := startOnAMQP(t, url, Options{ConfigURL: cs.URL, Port: 2})
	seen := watchBus(t, dialAMQP(t, url))
	o.commit(map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v2\n"})

	ans := a.post("/bus/refresh")
	if ans.status != 204 || len(ans.body) != 0 {
		t.Fatalf("POST /bus/refresh: %d %s", ans.status, ans.body)
	}
	if m := a.greeting(); m["msg"] != "v2" {
		t.Fatalf("the origin serves %q once the POST returned", m["msg"])
	}
	id := seen.refreshID(t)
	seen.acks(t, id, a.app.ServiceID(), b.app.ServiceID())
	if b.greeting()["msg"] != "v2" {
		t.Fatal("the other instance acknowledged without refreshing")
	}
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

// The service id carries the active profiles, and a destination naming one of them reaches the instance.
func TestBusDestinationByProfile(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": open + busDebug + "greeting:\n  message: v1\n"})
	cs := startConfigServer(t, o)
	local := bus.NewLocal(nil)
	defer local.Close()
	cloud := startApp(t, Options{ConfigURL: cs.URL, Name: "app", Profiles: []string{"dev", "cloud"}, Port: 1, InstanceID: "c", Bus: local})
	plain := startApp(t, Options{ConfigURL: cs.URL, Name: "app", Port: 2, Bus: local})
	if cloud.app.ServiceID() != "app:dev,cloud:1:c" {
		t.Fatalf("service id %q", cloud.app.ServiceID())
	}
	o.commit(map[string]string{"app.yml": open + busDebug + "greeting:\n  message: v2\n"})
	if err := local.Publish(context.Background(), bus.NewRefresh("spring:1:x", "app:cloud")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the cloud instance to refresh", func() bool { return cloud.greeting()["msg"] == "v2" })
	waitFor(t, "the other to skip it", func() bool { return len(plain.logs.Lines("ignoring a bus event for other instances")) == 1 })
}

func TestBusIgnoresEventsOfOtherTypes(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v1\n"})
	local := bus.NewLocal(nil)
	defer local.Close()
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL, Bus: local})
	o.commit(map[string]string{"greeting-config.yml": open + busDebug + "greeting:\n  message: v2\n"})
	for _, e := range []bus.Event{
		bus.NewAck("x:1:y", bus.NewRefresh("x:1:z", "")),
		{Type: "EnvironmentChangeRemoteApplicationEvent", OriginService: "x:1:y", DestinationService: "**", ID: "2"},
	} {
		if err := local.Publish(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the ack to be seen", func() bool { return len(in.logs.Lines("a bus acknowledgement")) == 1 })
	waitFor(t, "the other type to be ignored", func() bool { return len(in.logs.Lines("ignoring a bus event of another type")) == 1 })
	if in.greeting()["msg"] != "v1" {
		t.Fatal("refreshed on an event that is not a refresh")
	}
	if err := local.Publish(context.Background(), bus.NewRefresh("spring-app:8080:abc", "")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a foreign refresh event to apply", func() bool { return in.greeting()["msg"] == "v2" })
}

// A refresh that cannot be applied (the configuration server is down) is not acknowledged.
func TestBusAcknowledgesOnlyWhatItApplied(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: v1\n"})
	cs := startConfigServer(t, o)
	local := bus.NewLocal(nil)
	defer local.Close()
	in := startApp(t, Options{ConfigURL: cs.URL, Bus: local, FetchTimeout: time.Second})
	seen := watchBus(t, local)
	cs.down.Store(true)
	e := bus.NewRefresh("spring-app:8080:abc", "")
	if err := local.Publish(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the refresh to fail", func() bool { return len(in.logs.Lines("refresh failed")) == 1 })
	seen.noAck(t, e.ID, 200*time.Millisecond)
	cs.down.Store(false)
	e = bus.NewRefresh("spring-app:8080:abc", "")
	if err := local.Publish(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	seen.acks(t, e.ID, in.app.ServiceID())
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

// The broker down at start: the instance starts and serves; /bus/refresh answers 503 saying the broker cannot
// be reached, and refreshes nothing; once the broker answers, the bus works.
func TestBusRefreshWhenTheBrokerIsDown(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	p := rabbittest.NewProxy(t, url)
	p.Down()
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: v1\n"})
	in := startOnAMQP(t, p.URL(url), Options{ConfigURL: startConfigServer(t, o).URL})
	o.commit(map[string]string{"greeting-config.yml": open + "greeting:\n  message: v2\n"})
	a := in.post("/bus/refresh")
	var e errorBody
	a.json(t, &e)
	if a.status != 503 || !strings.Contains(e.Message, "the message broker cannot be reached") || strings.Contains(e.Message, "guest:guest") {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if in.greeting()["msg"] != "v1" {
		t.Fatal("refreshed although the event could not be published")
	}
	p.Up()
	waitFor(t, "the bus to come back", func() bool { return in.post("/bus/refresh").status == 204 })
	if in.greeting()["msg"] != "v2" {
		t.Fatal("not refreshed once the broker answered")
	}
}
