package bus

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Spring Cloud Stream's Rabbit binder, which Spring Cloud Bus binds to the destination Exchange: a durable topic
// exchange; the producer routes with the destination's name as routing key, persistent, content type
// application/json; each consumer without a group has an anonymous queue "<destination>.anonymous.<base64url
// UUID>" (exclusive, auto-delete, not durable) bound with "#", so every instance sees every event.
const (
	RoutingKey  = Exchange
	ContentType = "application/json"
	queuePrefix = Exchange + ".anonymous."
	bindingKey  = "#"
)

const (
	// dialTimeout bounds a connection attempt (TCP and AMQP handshake).
	dialTimeout = 5 * time.Second
	// heartbeat detects a broker that stopped answering (the connection closes after two missed beats).
	heartbeat = 10 * time.Second
	// publishTimeout bounds a publish and the broker's confirmation of it.
	publishTimeout = 5 * time.Second
	// prefetch bounds the deliveries waiting for a subscriber.
	prefetch = 16
	// retryMin and retryMax bound the wait between connection attempts, which doubles while they fail.
	retryMin, retryMax = 200 * time.Millisecond, 5 * time.Second
)

// ErrUnavailable is returned (wrapped, with the broker's address and the cause) by Publish while the broker
// cannot be reached.
var ErrUnavailable = errors.New("the message broker cannot be reached")

// AMQP is the bus on a RabbitMQ broker with Spring Cloud Bus's topology, so that reference instances and Spring
// applications share it. It connects in the background and reconnects after a loss, declaring the exchange
// and each subscriber's queue again; while it is disconnected Publish fails with ErrUnavailable and events
// published by others are lost for it, as for a Spring instance.
type AMQP struct {
	url     string
	display string // url without its password
	log     *slog.Logger
	stop    chan struct{}
	done    chan struct{}

	mu     sync.Mutex
	conn   *amqp.Connection // nil while disconnected
	pub    *amqp.Channel    // in confirm mode
	down   error            // why there is no connection
	logged bool             // the current outage was logged
	subs   map[*amqpSub]struct{}
	closed bool

	pubMu sync.Mutex // one publish (and its confirmation) at a time
}

type amqpSub struct {
	h       Handler
	queue   string
	ch      *amqp.Channel // the current consumer's, nil while disconnected
	running sync.WaitGroup
}

// DialAMQP checks rawURL (amqp://user:password@host:port/vhost, or amqps://) and starts connecting. It waits
// for the first attempt, up to ctx, so that a reachable broker is connected when it returns; an unreachable
// one is logged and tried again in the background, and the bus works once it answers. Only a malformed URL is
// an error.
func DialAMQP(ctx context.Context, rawURL string, log *slog.Logger) (*AMQP, error) {
	display := redactURL(rawURL)
	if _, err := amqp.ParseURI(rawURL); err != nil {
		reason := strings.ReplaceAll(err.Error(), rawURL, display) // the parser quotes the URL
		return nil, fmt.Errorf("bus: invalid AMQP URL %q: %s (want amqp://user:password@host:port/vhost)", display, reason)
	}
	b := &AMQP{url: rawURL, display: display, log: orDiscard(log), stop: make(chan struct{}), done: make(chan struct{}),
		subs: make(map[*amqpSub]struct{}), down: errors.New("not connected yet")}
	first := make(chan struct{})
	go b.run(first)
	select {
	case <-first:
	case <-ctx.Done():
	}
	return b, nil
}

// Publish sends e to the exchange and waits for the broker to confirm it.
func (b *AMQP) Publish(ctx context.Context, e Event) error {
	data, err := e.Encode()
	if err != nil {
		return err
	}
	b.mu.Lock()
	ch, down, closed := b.pub, b.down, b.closed
	b.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case ch == nil:
		return b.unavailable(down)
	}
	b.pubMu.Lock()
	defer b.pubMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	confirm, err := ch.PublishWithDeferredConfirmWithContext(ctx, Exchange, RoutingKey, false, false, amqp.Publishing{
		ContentType: ContentType, DeliveryMode: amqp.Persistent, Body: data,
	})
	if err != nil {
		return b.unavailable(err)
	}
	if ok, err := confirm.WaitContext(ctx); err != nil {
		return b.unavailable(err)
	} else if !ok {
		return fmt.Errorf("bus: the message broker at %s refused the event (negative confirmation)", b.display)
	}
	return nil
}

func (b *AMQP) unavailable(cause error) error {
	return fmt.Errorf("bus: %w at %s: %v", ErrUnavailable, b.display, cause)
}

// Subscribe gives h a queue of its own on the exchange. While connected the queue is in place when it returns;
// otherwise it is made when the connection comes, and again after each reconnection.
func (b *AMQP) Subscribe(_ context.Context, h Handler) (func(), error) {
	s := &amqpSub{h: h, queue: queuePrefix + base64URLUUID()}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if b.conn != nil {
		if err := b.attach(b.conn, s); err != nil {
			return nil, fmt.Errorf("bus: subscribing at %s: %w", b.display, err)
		}
	}
	b.subs[s] = struct{}{}
	return func() { b.unsubscribe(s) }, nil
}

func (b *AMQP) unsubscribe(s *amqpSub) {
	b.mu.Lock()
	delete(b.subs, s)
	ch := s.ch
	s.ch = nil
	b.mu.Unlock()
	if ch != nil {
		_ = ch.Close() // ends the deliveries; the broker deletes the exclusive queue
	}
	s.running.Wait()
}

// Close ends every subscription and the connection, and stops reconnecting.
func (b *AMQP) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	subs := make([]*amqpSub, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	conn := b.conn
	b.mu.Unlock()
	close(b.stop)
	for _, s := range subs {
		b.unsubscribe(s)
	}
	if conn != nil {
		_ = conn.Close()
	}
	<-b.done
	return nil
}

// run connects, waits for the connection to end, and connects again, until Close. first is closed after the
// first attempt.
func (b *AMQP) run(first chan struct{}) {
	defer close(b.done)
	wait := retryMin
	for attempt := 0; ; attempt++ {
		lost, err := b.connect()
		if attempt == 0 {
			close(first)
		}
		if err == nil {
			wait = retryMin
			b.log.Info("connected to the message broker", "broker", b.display, "exchange", Exchange)
			select {
			case <-b.stop:
				return
			case err = <-lost:
			}
		}
		if b.disconnected(err) {
			b.log.Warn("the message broker cannot be reached; the bus is down until it answers (POST /bus/refresh answers 503), retrying",
				"broker", b.display, "err", err)
		}
		select {
		case <-b.stop:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}

// connect opens a connection, declares the exchange, opens the publishing channel and the subscribers' queues.
// lost yields why the connection (or its publishing channel) ended.
func (b *AMQP) connect() (lost <-chan error, err error) {
	conn, err := amqp.DialConfig(b.url, amqp.Config{Heartbeat: heartbeat, Locale: "en_US", Dial: amqp.DefaultDial(dialTimeout),
		Properties: amqp.Table{"connection_name": "fortune-tck reference bus"}})
	if err != nil {
		return nil, err
	}
	pub, err := publishChannel(conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		_ = conn.Close()
		return nil, ErrClosed
	}
	for s := range b.subs {
		if err := b.attach(conn, s); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("subscribing again: %w", err)
		}
	}
	b.conn, b.pub, b.down, b.logged = conn, pub, nil, false
	return watch(conn, pub), nil
}

// publishChannel declares the exchange as Spring's binder does and returns a channel in confirm mode.
func publishChannel(conn *amqp.Connection) (*amqp.Channel, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, err
	}
	if err := ch.ExchangeDeclare(Exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return nil, fmt.Errorf("declaring the exchange %s: %w", Exchange, err)
	}
	return ch, ch.Confirm(false)
}

// watch yields once when the connection or the publishing channel closes; a closed channel on a live connection
// (the exchange deleted under it) closes the connection, so that everything is declared again.
func watch(conn *amqp.Connection, pub *amqp.Channel) <-chan error {
	lost := make(chan error, 1)
	connClosed := conn.NotifyClose(make(chan *amqp.Error, 1))
	pubClosed := pub.NotifyClose(make(chan *amqp.Error, 1))
	go func() {
		select {
		case err := <-connClosed:
			lost <- closeReason(err, "connection")
		case err := <-pubClosed:
			_ = conn.Close()
			lost <- closeReason(err, "publishing channel")
		}
	}()
	return lost
}

func closeReason(err *amqp.Error, what string) error {
	if err == nil {
		return fmt.Errorf("%s closed", what)
	}
	return err
}

// disconnected records why the bus is down and tells whether the outage is still to be logged: it is logged
// once, not at each attempt.
func (b *AMQP) disconnected(err error) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.conn, b.pub, b.down = nil, nil, err
	for s := range b.subs {
		s.ch = nil
	}
	first := !b.logged
	b.logged = true
	return first
}

// attach declares s's queue on conn, binds it and starts delivering; b.mu is held.
func (b *AMQP) attach(conn *amqp.Connection, s *amqpSub) error {
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	deliveries, err := declareQueue(ch, s.queue)
	if err != nil {
		_ = ch.Close()
		return err
	}
	s.ch = ch
	s.running.Add(1)
	go b.deliver(s, ch, deliveries)
	return nil
}

func declareQueue(ch *amqp.Channel, queue string) (<-chan amqp.Delivery, error) {
	if err := ch.Qos(prefetch, 0, false); err != nil {
		return nil, err
	}
	if _, err := ch.QueueDeclare(queue, false, true, true, false, nil); err != nil {
		return nil, fmt.Errorf("declaring the queue %s: %w", queue, err)
	}
	if err := ch.QueueBind(queue, bindingKey, Exchange, false, nil); err != nil {
		return nil, fmt.Errorf("binding the queue %s to %s: %w", queue, Exchange, err)
	}
	return ch.Consume(queue, "", false, true, false, false, nil)
}

// deliver hands each event to the handler, in order; a message that is not an event is logged and dropped.
func (b *AMQP) deliver(s *amqpSub, ch *amqp.Channel, deliveries <-chan amqp.Delivery) {
	defer s.running.Done()
	defer b.consumerEnded(s, ch)
	for d := range deliveries {
		if e, err := Decode(d.Body); err != nil {
			b.log.Warn("ignoring a malformed bus message", "exchange", d.Exchange, "routingKey", d.RoutingKey,
				"contentType", d.ContentType, "err", err, "message", truncate(string(d.Body), 200))
		} else {
			s.h(e)
		}
		_ = d.Ack(false)
	}
}

// consumerEnded closes the connection when the broker ended a subscriber's consumer on a live connection (its
// queue deleted by someone), so that everything is declared again; not when the subscriber went or the
// connection was lost.
func (b *AMQP) consumerEnded(s *amqpSub, ch *amqp.Channel) {
	b.mu.Lock()
	_, subscribed := b.subs[s]
	current, conn := s.ch == ch, b.conn
	b.mu.Unlock()
	if subscribed && current && conn != nil && !conn.IsClosed() {
		b.log.Warn("the broker ended the bus subscription; reconnecting", "broker", b.display, "queue", s.queue)
		_ = conn.Close()
	}
}

// base64URLUUID is the name Spring AMQP's Base64UrlNamingStrategy gives an anonymous queue: a random UUID's 16
// bytes in unpadded base64url.
func base64URLUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// redactURL hides the password of a URL, and the whole user part of one that does not parse.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if u.User == nil {
			return raw
		}
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	authority, _, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(authority, '@'); ok && at >= 0 {
		return scheme + "://xxxxx" + rest[at:]
	}
	return raw
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
