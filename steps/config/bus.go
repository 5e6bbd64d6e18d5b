package config

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// Spring Cloud Bus on RabbitMQ, as the scenarios of config.bus-spring-wire check it (the wire is described in
// spring-cloud-bus, org.springframework.cloud.bus: BusConstants, BusConsumer, PathDestinationFactory and the
// event classes; and in spring-cloud-stream's Rabbit binder: RabbitCommonProperties, RabbitProducerProperties,
// RabbitMessageChannelBinder). The suite binds a queue of its own to the exchange, as a Spring instance binds
// its anonymous queue, and reads every event; it publishes as a Spring instance publishes.
const (
	busExchange      = "springCloudBus"
	refreshEventType = "RefreshRemoteApplicationEvent"
	ackEventType     = "AckRemoteApplicationEvent"
	refreshClass     = "org.springframework.cloud.bus.event.RefreshRemoteApplicationEvent"
	// maxBusMessage and maxBusMessages bound what the watch keeps: Spring's events are a few hundred bytes,
	// and a scenario sees a few dozen.
	maxBusMessage  = 64 << 10
	maxBusMessages = 2000
	busTimeout     = 10 * time.Second
)

var uuidForm = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// busWatch is the scenario's queue on the bus and what it received.
type busWatch struct {
	conn    *amqp.Connection
	ch      *amqp.Channel
	queue   string
	mu      sync.Mutex
	got     []busMessage
	dropped int
}

// busMessage is one delivery: where it came from, its properties and its event.
type busMessage struct {
	routingKey, contentType string
	deliveryMode            uint8
	body                    string
	event                   map[string]any // nil when the body is not a JSON object
}

func (ap *configAppSteps) registerBus(sc *godog.ScenarioContext) {
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		ap.unwatchBus()
		return ctx, nil
	})
	sc.Step(`^a queue of the scenario's own is bound to the bus$`, ap.watchBus)
	sc.Step(`^the bus carries a refresh event from instance (\d) to "([^"]+)"$`, func(n int, dest string) error {
		return ap.busCarriesRefresh(n-1, dest)
	})
	sc.Step(`^instances? (\d(?:(?:, | and )\d)*) acknowledges? that event on the bus, and no other instance does$`, ap.instancesAcknowledge)
	sc.Step(`^the suite publishes on the bus, as a Spring application does, a refresh event for "([^"]+)"$`, ap.publishRefresh)
}

// watchBus binds a queue of the scenario's own, exclusive to its connection (the broker deletes it when the
// scenario ends), to the exchange with "#": it receives every event, as each Spring instance's queue does. The
// exchange must exist: the instances declared it.
func (ap *configAppSteps) watchBus() error {
	broker := ap.Services().ConfigApp.Broker
	if broker == "" {
		return core.Blockedf("the target names no broker (services.configApp.broker)")
	}
	if len(ap.instances) == 0 {
		return fmt.Errorf("no instance was started before this step: the exchange is theirs to declare")
	}
	conn, err := amqp.DialConfig(broker, amqp.Config{Dial: amqp.DefaultDial(busTimeout), Heartbeat: 10 * time.Second,
		Properties: amqp.Table{"connection_name": "fortune-tck " + ap.Names.App}})
	if err != nil {
		return fmt.Errorf("cannot connect to the broker %s (services.configApp.broker): %w", redacted(broker), err)
	}
	w := &busWatch{conn: conn, queue: ap.Names.App + ".bus-watch"}
	ap.bus = w
	if w.ch, err = conn.Channel(); err != nil {
		return err
	}
	if err := w.ch.ExchangeDeclarePassive(busExchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return ap.Failf("the broker has no exchange %s, which Spring Cloud Bus's instances declare "+
			"(spring.cloud.bus.destination): %v", busExchange, err)
	}
	deliveries, err := w.subscribe()
	if err != nil {
		return fmt.Errorf("binding a queue to %s: %w", busExchange, err)
	}
	go w.collect(deliveries)
	return nil
}

func (w *busWatch) subscribe() (<-chan amqp.Delivery, error) {
	if err := w.ch.Qos(64, 0, false); err != nil {
		return nil, err
	}
	if _, err := w.ch.QueueDeclare(w.queue, false, true, true, false, nil); err != nil {
		return nil, err
	}
	if err := w.ch.QueueBind(w.queue, "#", busExchange, false, nil); err != nil {
		return nil, err
	}
	return w.ch.Consume(w.queue, "", false, true, false, false, nil)
}

// collect keeps each delivery, within bounds.
func (w *busWatch) collect(deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		_ = d.Ack(false)
		w.mu.Lock()
		if len(w.got) >= maxBusMessages || len(d.Body) > maxBusMessage {
			w.dropped++
		} else {
			m := busMessage{routingKey: d.RoutingKey, contentType: d.ContentType, deliveryMode: d.DeliveryMode, body: string(d.Body)}
			if v, err := core.DecodeJSON(m.body); err == nil {
				m.event, _ = v.(map[string]any)
			}
			w.got = append(w.got, m)
		}
		w.mu.Unlock()
	}
}

func (w *busWatch) messages() []busMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]busMessage(nil), w.got...)
}

// unwatchBus closes the connection: the broker deletes the exclusive queue with it.
func (ap *configAppSteps) unwatchBus() {
	if ap.bus != nil {
		_ = ap.bus.conn.Close()
		ap.bus = nil
	}
	ap.busEvent = nil
}

func (ap *configAppSteps) watching() (*busWatch, error) {
	if ap.bus == nil {
		return nil, fmt.Errorf("no queue of the scenario's is bound to the bus: a step \"a queue of the scenario's own is bound to the bus\" must come first")
	}
	return ap.bus, nil
}

// busCarriesRefresh waits for the refresh event instance i published, and checks it is Spring's: on the
// exchange, routed with its name, persistent, JSON with the type, an epoch-millisecond timestamp, the
// instance's service id as origin, the destination normalised as Spring does, and a UUID.
func (ap *configAppSteps) busCarriesRefresh(i int, dest string) error {
	w, err := ap.watching()
	if err != nil {
		return err
	}
	if _, err := ap.instance(i); err != nil {
		return err
	}
	if dest, err = ap.Expand(dest); err != nil {
		return err
	}
	var found *busMessage
	what := fmt.Sprintf("a %s from instance %d on the exchange %s", refreshEventType, i+1, busExchange)
	err = ap.Until(busTimeout, what, func() (bool, error) {
		for _, m := range w.messages() {
			if m.event != nil && m.event["type"] == refreshEventType && ap.isOrigin(i, str(m.event["originService"])) {
				found = &m
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return ap.busFailure(err, w)
	}
	if err := checkDelivery(found); err != nil {
		return ap.Failf("the refresh event: %v\n  %s", err, found.body)
	}
	e := found.event
	if problem := checkEventFields(e); problem != "" {
		return ap.Failf("the refresh event is not Spring's: %s\n  %s", problem, found.body)
	}
	if got := str(e["destinationService"]); got != dest {
		return ap.Failf("the refresh event's destinationService is %q, want %q (Spring sends the destination with :** "+
			"appended when it has at most two elements)\n  %s", got, dest, found.body)
	}
	ap.busEvent = e
	return nil
}

// checkDelivery checks the properties Spring Cloud Stream's Rabbit binder gives a message.
func checkDelivery(m *busMessage) error {
	switch {
	case m.routingKey != busExchange:
		return fmt.Errorf("routed with %q, want the destination's name %q", m.routingKey, busExchange)
	case !strings.HasPrefix(m.contentType, "application/json"):
		return fmt.Errorf("content type %q, want application/json", m.contentType)
	case m.deliveryMode != amqp.Persistent:
		return fmt.Errorf("delivery mode %d, want %d (persistent)", m.deliveryMode, amqp.Persistent)
	}
	return nil
}

// checkEventFields checks the members every RemoteApplicationEvent has, as Jackson writes them.
func checkEventFields(e map[string]any) string {
	for _, k := range []string{"type", "originService", "destinationService", "id"} {
		if _, ok := e[k].(string); !ok {
			return fmt.Sprintf("%s is %s, want a string", k, core.MustJSON(e[k]))
		}
	}
	n, ok := e["timestamp"].(json.Number)
	ms, err := n.Int64()
	if !ok || err != nil {
		return fmt.Sprintf("timestamp is %s, want an integer (epoch milliseconds)", core.MustJSON(e["timestamp"]))
	}
	if d := time.Since(time.UnixMilli(ms)); d > 10*time.Minute || d < -10*time.Minute {
		return fmt.Sprintf("timestamp %d is not now in epoch milliseconds (%s away)", ms, d.Round(time.Second))
	}
	if !uuidForm.MatchString(str(e["id"])) {
		return fmt.Sprintf("id %q is not a UUID", e["id"])
	}
	return ""
}

// instancesAcknowledge waits for an acknowledgement of the event from each listed instance, then watches a
// second more for one from any other.
func (ap *configAppSteps) instancesAcknowledge(list string) error {
	w, err := ap.watching()
	if err != nil {
		return err
	}
	if ap.busEvent == nil {
		return fmt.Errorf("no event was found on the bus before this step")
	}
	want := map[int]bool{}
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f)
		if _, err := ap.instance(n - 1); err != nil {
			return err
		}
		want[n-1] = true
	}
	id := str(ap.busEvent["id"])
	err = ap.Until(15*time.Second, fmt.Sprintf("acknowledgements of the event %s from instances %s", id, list), func() (bool, error) {
		acked, problem := ap.acks(w, id)
		if problem != "" {
			return false, ap.Failf("%s", problem)
		}
		for i := range want {
			if !acked[i] {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return ap.busFailure(err, w)
	}
	return ap.Never(time.Second, "an instance the event was not addressed to acknowledged it", func() (string, error) {
		acked, problem := ap.acks(w, id)
		if problem != "" {
			return problem, nil
		}
		for i := range acked {
			if !want[i] {
				return fmt.Sprintf("instance %d", i+1), nil
			}
		}
		if acked[-1] {
			return "a service that is none of the scenario's instances", nil
		}
		return "", nil
	})
}

// acks are the instances (by index; -1 for anyone else) that acknowledged the event id, or the problem with an
// acknowledgement that is not Spring's.
func (ap *configAppSteps) acks(w *busWatch, id string) (map[int]bool, string) {
	acked := map[int]bool{}
	for _, m := range w.messages() {
		e := m.event
		if e == nil || e["type"] != ackEventType || e["ackId"] != id {
			continue
		}
		if err := checkDelivery(&m); err != nil {
			return nil, fmt.Sprintf("an acknowledgement: %v\n  %s", err, m.body)
		}
		if problem := checkEventFields(e); problem != "" {
			return nil, "an acknowledgement is not Spring's: " + problem + "\n  " + m.body
		}
		if e["event"] != refreshClass || e["ackDestinationService"] != ap.busEvent["destinationService"] {
			return nil, fmt.Sprintf("an acknowledgement names the event class %s and the destination %s, want %q and %q\n  %s",
				core.MustJSON(e["event"]), core.MustJSON(e["ackDestinationService"]), refreshClass, ap.busEvent["destinationService"], m.body)
		}
		acked[ap.instanceOf(str(e["originService"]))] = true
	}
	return acked, ""
}

// publishRefresh publishes a refresh event as a Spring instance does: Jackson's JSON of the event, the
// destination normalised, from a service id no instance has, routed with the exchange's name, persistent.
func (ap *configAppSteps) publishRefresh(dest string) error {
	w, err := ap.watching()
	if err != nil {
		return err
	}
	if dest, err = ap.Expand(dest); err != nil {
		return err
	}
	if strings.Count(dest, ":") <= 1 && !strings.HasSuffix(strings.ToLower(dest), ":**") && dest != "**" {
		dest += ":**"
	}
	id := newUUID()
	body := fmt.Sprintf(`{"type":%q,"timestamp":%d,"originService":%q,"destinationService":%q,"id":%q}`,
		refreshEventType, time.Now().UnixMilli(), "tck-spring:0:"+ap.Names.ID, dest, id)
	ctx, cancel := context.WithTimeout(ap.Context(), busTimeout)
	defer cancel()
	err = w.ch.PublishWithContext(ctx, busExchange, busExchange, false, false, amqp.Publishing{
		ContentType: "application/json", DeliveryMode: amqp.Persistent, Body: []byte(body)})
	if err != nil {
		return fmt.Errorf("publishing on the bus: %w", err)
	}
	var e map[string]any
	_ = json.Unmarshal([]byte(body), &e)
	ap.busEvent = e
	return nil
}

// isOrigin tells whether a service id is instance i's: Spring's bus id is "<app>:<port>:<random>", or
// "<app>:<profiles>:<port>:<random>", so its first element is the instance's name and one element its port.
func (ap *configAppSteps) isOrigin(i int, serviceID string) bool {
	elements := strings.Split(serviceID, ":")
	u, err := url.Parse(ap.instances[i].URL())
	if err != nil || len(elements) < 2 || elements[0] != ap.appNames[i] {
		return false
	}
	for _, e := range elements[1:] {
		if e == u.Port() {
			return true
		}
	}
	return false
}

// instanceOf is the index of the instance a service id is, or -1.
func (ap *configAppSteps) instanceOf(serviceID string) int {
	for i := range ap.instances {
		if ap.isOrigin(i, serviceID) {
			return i
		}
	}
	return -1
}

// busFailure adds what the scenario's queue received to a failure: the events of the scenario's instances.
func (ap *configAppSteps) busFailure(err error, w *busWatch) error {
	var lines []string
	for _, m := range w.messages() {
		if strings.Contains(m.body, ap.Names.App) || strings.Contains(m.body, ap.Names.ID) {
			lines = append(lines, "  "+core.Excerpt("application/json", []byte(m.body), 400))
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("%w\nthe scenario's queue received no event of its instances", err)
	}
	return fmt.Errorf("%w\nthe scenario's queue received:\n%s", err, strings.Join(lines, "\n"))
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(the URL does not parse)"
}

// newUUID is a random version 4 UUID, as Spring gives an event.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
