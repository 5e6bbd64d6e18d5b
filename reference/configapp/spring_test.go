package configapp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"path"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
)

// springInstance stands in for a Spring Cloud Bus application on RabbitMQ. It is written from Spring's rules
// alone, not with package bus, so that the reference is checked against them rather than against itself:
//
//   - Spring Cloud Stream's Rabbit binder (spring-cloud-stream, binders/rabbit-binder: RabbitCommonProperties,
//     RabbitConsumerProperties, RabbitExchangeQueueProvisioner, RabbitMessageChannelBinder): the destination
//     springCloudBus is a durable topic exchange; a consumer without a group gets an anonymous exclusive,
//     auto-delete queue "<destination>.anonymous.<name>" bound with "#"; a producer routes with the destination's
//     name, persistent.
//   - Spring Cloud Bus (spring-cloud-bus, docs "Addressing Instances", BusConsumer, PathServiceMatcher,
//     DefaultBusPathMatcher, PathDestinationFactory, AckRemoteApplicationEvent): the bus id
//     "app:profiles:port:random"; a destination is a PathMatcher pattern with ":" as separator, tried for each of
//     the id's comma-separated profiles; "app" or "app:9000" is sent as "app:**" or "app:9000:**"; an event for
//     this instance is applied unless this instance sent it, and acknowledged either way, with an
//     AckRemoteApplicationEvent to "**" naming the event's id, destination and class.
type springInstance struct {
	tb        testing.TB
	id        string
	ch        *amqp.Channel
	refreshed chan map[string]any // refresh events applied
	acks      chan map[string]any // acknowledgements of other instances
	events    chan map[string]any // every refresh event seen
}

func startSpring(tb testing.TB, url, id string) *springInstance {
	tb.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		tb.Fatal(err)
	}
	queue := "springCloudBus.anonymous.spring-" + randomName()
	check := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	check(ch.ExchangeDeclare("springCloudBus", "topic", true, false, false, false, nil))
	_, err = ch.QueueDeclare(queue, false, true, true, false, nil)
	check(err)
	check(ch.QueueBind(queue, "#", "springCloudBus", false, nil))
	deliveries, err := ch.Consume(queue, "", true, true, false, false, nil)
	check(err)
	s := &springInstance{tb: tb, id: id, ch: ch, refreshed: make(chan map[string]any, 16),
		acks: make(chan map[string]any, 16), events: make(chan map[string]any, 16)}
	go s.consume(deliveries)
	return s
}

func randomName() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *springInstance) consume(deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		var e map[string]any
		if json.Unmarshal(d.Body, &e) != nil {
			continue
		}
		origin, _ := e["originService"].(string)
		switch e["type"] {
		case "AckRemoteApplicationEvent":
			if !springMatch(origin, s.id) {
				s.acks <- e
			}
		case "RefreshRemoteApplicationEvent":
			s.events <- e
			dest, _ := e["destinationService"].(string)
			if strings.TrimSpace(dest) != "" && !springMatch(dest, s.id) {
				continue
			}
			if !springMatch(origin, s.id) {
				s.refreshed <- e
			}
			s.publish(map[string]any{"type": "AckRemoteApplicationEvent", "timestamp": time.Now().UnixMilli(),
				"originService": s.id, "destinationService": "**", "id": randomName(), "ackId": e["id"],
				"ackDestinationService": dest, "event": "org.springframework.cloud.bus.event.RefreshRemoteApplicationEvent"})
		}
	}
}

// refresh publishes a refresh event as Spring's /actuator/busrefresh/{destination} does, and returns its id.
func (s *springInstance) refresh(destination string) string {
	if destination == "" {
		destination = "**"
	} else if strings.Count(destination, ":") <= 1 && !strings.HasSuffix(destination, ":**") {
		destination += ":**"
	}
	id := randomName()
	s.publish(map[string]any{"type": "RefreshRemoteApplicationEvent", "timestamp": time.Now().UnixMilli(),
		"originService": s.id, "destinationService": destination, "id": id})
	return id
}

func (s *springInstance) publish(e map[string]any) {
	body, _ := json.Marshal(e)
	err := s.ch.PublishWithContext(context.Background(), "springCloudBus", "springCloudBus", false, false,
		amqp.Publishing{ContentType: "application/json", DeliveryMode: amqp.Persistent, Body: body})
	if err != nil {
		s.tb.Error(err)
	}
}

// springMatch is AntPathMatcher with ":" as separator ("**" any number of elements, "*" and "?" within one),
// tried again with each profile of an id that lists several (DefaultBusPathMatcher).
func springMatch(pattern, id string) bool {
	split := func(s string) []string { return strings.FieldsFunc(s, func(r rune) bool { return r == ':' }) }
	p, parts := split(pattern), split(id)
	if antMatch(p, parts) {
		return true
	}
	if len(parts) > 1 && strings.Contains(parts[1], ",") {
		for _, profile := range strings.Split(parts[1], ",") {
			one := append([]string{parts[0], strings.TrimSpace(profile)}, parts[2:]...)
			if antMatch(p, one) {
				return true
			}
		}
	}
	return false
}

func antMatch(p, s []string) bool {
	switch {
	case len(p) == 0:
		return len(s) == 0
	case p[0] == "**":
		return antMatch(p[1:], s) || (len(s) > 0 && antMatch(p, s[1:]))
	case len(s) == 0:
		return false
	}
	ok, _ := path.Match(p[0], s[0])
	return ok && antMatch(p[1:], s[1:])
}

// nextID is the id of the next refresh event the stand-in sees.
func (s *springInstance) nextID() string {
	s.tb.Helper()
	select {
	case e := <-s.events:
		return e["id"].(string)
	case <-time.After(10 * time.Second):
		s.tb.Fatal("the Spring instance saw no refresh event")
		return ""
	}
}

// expectAcks waits for the acknowledgements of event id from exactly the origins in want.
func (s *springInstance) expectAcks(id, event string, want ...string) {
	s.tb.Helper()
	got := map[string]bool{}
	timeout := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case a := <-s.acks:
			if a["ackId"] != id {
				continue
			}
			if a["event"] != "org.springframework.cloud.bus.event.RefreshRemoteApplicationEvent" || a["destinationService"] != "**" ||
				a["ackDestinationService"] != event {
				s.tb.Fatalf("acknowledgement %v of an event to %s", a, event)
			}
			got[a["originService"].(string)] = true
		case <-timeout:
			s.tb.Fatalf("acknowledgements of %s from %v, want %v", id, got, want)
		}
	}
	for _, w := range want {
		if !got[w] {
			s.tb.Fatalf("acknowledgements of %s from %v, want %v", id, got, want)
		}
	}
	s.quiet(id)
}

// quiet checks that no further acknowledgement of id and no refresh comes within a moment.
func (s *springInstance) quiet(id string) {
	s.tb.Helper()
	deadline := time.After(300 * time.Millisecond)
	for {
		select {
		case a := <-s.acks:
			if a["ackId"] == id {
				s.tb.Fatalf("an instance outside the destination acknowledged: %v", a)
			}
		case e := <-s.refreshed:
			s.tb.Fatalf("the Spring instance refreshed on %v", e)
		case <-deadline:
			return
		}
	}
}

func (s *springInstance) expectRefresh(id string) {
	s.tb.Helper()
	select {
	case e := <-s.refreshed:
		if e["id"] != id {
			s.tb.Fatalf("refreshed on %v, want %s", e, id)
		}
	case <-time.After(10 * time.Second):
		s.tb.Fatalf("the Spring instance did not refresh on %s", id)
	}
}

// Two reference instances and a Spring instance of the same application share one RabbitMQ: a refresh from
// either side reaches the instances it addresses, and no others, and each of them acknowledges it.
func TestReferenceAndSpringInstancesShareOneBus(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	message := func(v string) map[string]string {
		return map[string]string{"app.yml": open + "greeting:\n  message: " + v + "\n"}
	}
	o := newOrigin(t, message("v1"))
	cs := startConfigServer(t, o)
	a1 := startOnAMQP(t, url, Options{ConfigURL: cs.URL, Name: "app", Port: 8081, InstanceID: "a1"})
	a2 := startOnAMQP(t, url, Options{ConfigURL: cs.URL, Name: "app", Port: 8082, InstanceID: "a2"})
	spring := startSpring(t, url, "app:dev,cloud:9000:"+randomName())
	msg := func(in *instance) string { return in.greeting()["msg"] }

	// From a reference instance to the other: the origin and the Spring instance do nothing.
	o.commit(message("v2"))
	if a := a1.post("/bus/refresh?destination=app:8082"); a.status != 204 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	id := spring.nextID()
	spring.expectAcks(id, "app:8082:**", a2.app.ServiceID())
	if msg(a1) != "v1" || msg(a2) != "v2" {
		t.Fatalf("after a refresh of app:8082: %s, %s", msg(a1), msg(a2))
	}

	// From the Spring instance to one reference instance.
	o.commit(message("v3"))
	id = spring.refresh("app:8081")
	spring.nextID()
	spring.expectAcks(id, "app:8081:**", a1.app.ServiceID())
	if msg(a1) != "v3" || msg(a2) != "v2" {
		t.Fatalf("after a Spring refresh of app:8081: %s, %s", msg(a1), msg(a2))
	}

	// From a reference instance to the Spring instance, by one of its profiles.
	if a := a2.post("/bus/refresh?destination=app:cloud"); a.status != 204 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	id = spring.nextID()
	spring.expectRefresh(id)
	spring.quiet(id)
	if msg(a1) != "v3" || msg(a2) != "v2" {
		t.Fatalf("after a refresh of app:cloud: %s, %s", msg(a1), msg(a2))
	}

	// From the Spring instance to everyone: every other instance refreshes and acknowledges.
	o.commit(message("v4"))
	id = spring.refresh("")
	spring.nextID()
	spring.expectAcks(id, "**", a1.app.ServiceID(), a2.app.ServiceID())
	if msg(a1) != "v4" || msg(a2) != "v4" {
		t.Fatalf("after a Spring refresh of all: %s, %s", msg(a1), msg(a2))
	}
}
