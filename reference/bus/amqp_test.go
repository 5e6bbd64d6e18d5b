package bus

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

func TestMain(m *testing.M) { os.Exit(rabbittest.Main(m)) }

func dialBus(t *testing.T, url string, log *slog.Logger) *AMQP {
	t.Helper()
	b, err := DialAMQP(context.Background(), url, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// raw is a channel of a plain client, playing another application on the broker.
func raw(t *testing.T, url string) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestAMQPBus uses two connections, as two processes would.
func TestAMQPBus(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	exercise(t, dialBus(t, url, nil), dialBus(t, url, nil))
}

// The topology is Spring Cloud Stream's Rabbit binder's: a durable topic exchange springCloudBus, messages
// routed with its name, persistent, application/json; each subscriber's queue springCloudBus.anonymous.<22
// base64url characters>, exclusive to its connection and gone with the subscription.
func TestAMQPTopologyIsSpringCloudStreams(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	b := dialBus(t, url, nil)
	unsubscribe, err := b.Subscribe(context.Background(), func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	ch := raw(t, url)
	if err := ch.ExchangeDeclarePassive(Exchange, "topic", true, false, false, false, nil); err != nil {
		t.Fatalf("no exchange %s: %v", Exchange, err)
	}
	for kind, durable := range map[string]bool{"direct": true, "topic": false} {
		if err := raw(t, url).ExchangeDeclare(Exchange, kind, durable, false, false, false, nil); err == nil {
			t.Errorf("the exchange accepted a redeclaration as %s, durable %v: it is not a durable topic exchange", kind, durable)
		}
	}
	var queue string
	for s := range b.subs {
		queue = s.queue
	}
	if !regexp.MustCompile(`^springCloudBus\.anonymous\.[A-Za-z0-9_-]{22}$`).MatchString(queue) {
		t.Errorf("queue name %q", queue)
	}
	var amqpErr *amqp.Error
	if _, err := raw(t, url).QueueDeclarePassive(queue, false, true, true, false, nil); !errors.As(err, &amqpErr) || amqpErr.Code != amqp.ResourceLocked {
		t.Errorf("the queue is not exclusive to the bus's connection: %v", err)
	}

	// A queue bound as Spring's instances bind theirs sees what the bus publishes, as published.
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q.Name, "#", Exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	deliveries, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := NewRefresh("app:1:x", "app")
	if err := b.Publish(context.Background(), sent); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-deliveries:
		got, err := Decode(d.Body)
		if d.Exchange != Exchange || d.RoutingKey != Exchange || d.ContentType != "application/json" ||
			d.DeliveryMode != amqp.Persistent || err != nil || got != sent {
			t.Errorf("delivered %+v (%v) via %s/%s, content type %q, delivery mode %d", got, err, d.Exchange, d.RoutingKey, d.ContentType, d.DeliveryMode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing delivered")
	}
	unsubscribe()
	if _, err := raw(t, url).QueueDeclarePassive(queue, false, true, true, false, nil); !errors.As(err, &amqpErr) || amqpErr.Code != amqp.NotFound {
		t.Errorf("the queue outlived its subscription: %v", err)
	}
}

// publishRaw publishes a body as another application would.
func publishRaw(t *testing.T, ch *amqp.Channel, body string) {
	t.Helper()
	err := ch.PublishWithContext(context.Background(), Exchange, Exchange, false, false,
		amqp.Publishing{ContentType: "application/json", DeliveryMode: amqp.Persistent, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
}

// A message a Spring application published is read as Spring reads it; one that is not an event is logged once
// and dropped, and the bus goes on.
func TestAMQPReadsSpringsMessagesAndDropsTheRest(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	logs := &syncbuf.Buffer{}
	b := dialBus(t, url, slog.New(slog.NewTextHandler(logs, nil)))
	c := make(collector, 8)
	if _, err := b.Subscribe(context.Background(), c.handle); err != nil {
		t.Fatal(err)
	}
	ch := raw(t, url)
	for _, msg := range []string{"not json", `{"type":"RefreshRemoteApplicationEvent"}`, strings.Repeat("x", MaxMessageSize+1), springRefresh} {
		publishRaw(t, ch, msg)
	}
	want, _ := Decode([]byte(springRefresh))
	if got := c.next(t); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if n := strings.Count(logs.String(), "ignoring a malformed bus message"); n != 3 {
		t.Fatalf("%d warnings, want 3:\n%s", n, logs)
	}
	c.none(t, 100*time.Millisecond)
}

// publishUntil publishes from p until c receives, or fails after 20 s.
func publishUntil(t *testing.T, p Bus, c collector) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		_ = p.Publish(context.Background(), NewRefresh("a:1:x", ""))
		select {
		case <-c:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("no event delivered within 20s")
}

// unavailableWithin waits until Publish says the broker cannot be reached.
func unavailableWithin(t *testing.T, b *AMQP, d time.Duration) error {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := b.Publish(context.Background(), NewRefresh("a:1:x", ""))
		if errors.Is(err, ErrUnavailable) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("Publish while the broker is away: %v, want ErrUnavailable", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The broker going away and coming back: Publish fails while it is away, saying so once in the log; the
// subscription is renewed when it is back.
func TestAMQPReconnects(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	p := rabbittest.NewProxy(t, url)
	logs := &syncbuf.Buffer{}
	b := dialBus(t, p.URL(url), slog.New(slog.NewTextHandler(logs, nil)))
	c := make(collector, 64)
	if _, err := b.Subscribe(context.Background(), c.handle); err != nil {
		t.Fatal(err)
	}
	other := dialBus(t, url, nil)
	publishUntil(t, other, c)
	p.Down()
	unavailableWithin(t, b, 10*time.Second)
	time.Sleep(3 * retryMin) // a few attempts fail meanwhile
	p.Up()
	publishUntil(t, other, c)
	if err := b.Publish(context.Background(), NewRefresh("a:1:x", "")); err != nil {
		t.Fatalf("publish after the reconnection: %v", err)
	}
	if n := strings.Count(logs.String(), "the message broker cannot be reached"); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, logs)
	}
}

// A broker that is down at start: the bus is made all the same (the instance serves), Publish says the broker
// cannot be reached, without the password; once the broker answers, the subscription made meanwhile works.
func TestAMQPBrokerDownAtStart(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	p := rabbittest.NewProxy(t, url)
	p.Down()
	start := time.Now()
	b := dialBus(t, p.URL(url), nil)
	if time.Since(start) > 2*dialTimeout {
		t.Fatalf("DialAMQP waited %s for a broker that is down", time.Since(start))
	}
	c := make(collector, 64)
	if _, err := b.Subscribe(context.Background(), c.handle); err != nil {
		t.Fatal(err)
	}
	err := unavailableWithin(t, b, time.Second)
	if !strings.Contains(err.Error(), "cannot be reached at amqp://guest:xxxxx@") || strings.Contains(err.Error(), "guest:guest") {
		t.Fatalf("error %q", err)
	}
	p.Up()
	publishUntil(t, dialBus(t, url, nil), c)
}

// The exchange deleted under a connected bus: publishing on it fails, the bus reconnects and declares it again.
func TestAMQPDeclaresADeletedExchangeAgain(t *testing.T) {
	url := rabbittest.Start(t).VHost(t)
	b := dialBus(t, url, nil)
	c := make(collector, 64)
	if _, err := b.Subscribe(context.Background(), c.handle); err != nil {
		t.Fatal(err)
	}
	if err := raw(t, url).ExchangeDelete(Exchange, false, false); err != nil {
		t.Fatal(err)
	}
	publishUntil(t, b, c)
}

func TestDialAMQPRefusesAMalformedURL(t *testing.T) {
	for _, u := range []string{"http://host/", "amqp://user:s3cret@host:notaport/"} {
		_, err := DialAMQP(context.Background(), u, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid AMQP URL") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", u, err)
		}
	}
}

func TestAMQPClose(t *testing.T) {
	b, err := DialAMQP(context.Background(), rabbittest.Start(t).VHost(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(context.Background(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(context.Background(), func(Event) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe after close: %v", err)
	}
	if err := b.Publish(context.Background(), NewRefresh("a:1:x", "")); !errors.Is(err, ErrClosed) {
		t.Fatalf("publish after close: %v", err)
	}
}
