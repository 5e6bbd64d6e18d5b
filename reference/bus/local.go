package bus

import (
	"context"
	"log/slog"
	"sync"
)

// localQueue bounds the events waiting for one subscriber; beyond it events
// are dropped (and logged), as a broker drops messages for a stalled client.
const localQueue = 64

// Local is an in-process bus for instances that live in one process
// (reference up). Events go through the same encode/decode round trip as on
// a broker, so a subscriber sees exactly what Redis would deliver.
type Local struct {
	log    *slog.Logger
	mu     sync.Mutex
	subs   map[*localSub]struct{}
	closed bool
}

type localSub struct {
	h      Handler
	events chan Event
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// NewLocal returns an empty in-process bus; log may be nil.
func NewLocal(log *slog.Logger) *Local {
	return &Local{log: orDiscard(log), subs: make(map[*localSub]struct{})}
}

// Publish queues e for every subscriber and returns without waiting for
// them, as a broker does.
func (b *Local) Publish(_ context.Context, e Event) error {
	data, err := e.Encode()
	if err != nil {
		return err
	}
	if e, err = Decode(data); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	for s := range b.subs {
		select {
		case s.events <- e:
		default:
			b.log.Warn("bus subscriber is stalled; event dropped", "event", e.ID)
		}
	}
	return nil
}

// Subscribe starts delivering events to h.
func (b *Local) Subscribe(_ context.Context, h Handler) (func(), error) {
	s := &localSub{h: h, events: make(chan Event, localQueue), stop: make(chan struct{}), done: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	b.subs[s] = struct{}{}
	go s.run()
	return func() { b.unsubscribe(s) }, nil
}

func (b *Local) unsubscribe(s *localSub) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	s.once.Do(func() { close(s.stop) })
	<-s.done
}

// Close ends every subscription; Publish and Subscribe fail afterwards.
func (b *Local) Close() error {
	b.mu.Lock()
	b.closed = true
	subs := make([]*localSub, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		b.unsubscribe(s)
	}
	return nil
}

func (s *localSub) run() {
	defer close(s.done)
	for {
		select {
		case e := <-s.events:
			s.h(e)
		case <-s.stop:
			return
		}
	}
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
