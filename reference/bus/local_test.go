package bus

import (
	"context"
	"errors"
	"testing"
	"time"
)

// collector records the events a subscription receives.
type collector chan Event

func (c collector) handle(e Event) { c <- e }

func (c collector) next(t *testing.T) Event {
	t.Helper()
	select {
	case e := <-c:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return Event{}
	}
}

func (c collector) none(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case e := <-c:
		t.Fatalf("unexpected event %+v", e)
	case <-time.After(within):
	}
}

// exercise checks what every Bus implementation must do.
func exercise(t *testing.T, a, b Bus) {
	ctx := context.Background()
	ca, cb := make(collector, 8), make(collector, 8)
	unsubA, err := a.Subscribe(ctx, ca.handle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(ctx, cb.handle); err != nil {
		t.Fatal(err)
	}
	sent := NewRefresh("app:1:x", "app")
	if err := a.Publish(ctx, sent); err != nil {
		t.Fatal(err)
	}
	for _, c := range []collector{ca, cb} {
		if got := c.next(t); got != sent {
			t.Fatalf("received %+v, sent %+v", got, sent)
		}
	}
	unsubA()
	unsubA() // twice is harmless
	if err := b.Publish(ctx, NewRefresh("app:1:y", "")); err != nil {
		t.Fatal(err)
	}
	cb.next(t)
	ca.none(t, 100*time.Millisecond)
}

func TestLocalBus(t *testing.T) {
	b := NewLocal(nil)
	exercise(t, b, b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(context.Background(), NewRefresh("a:1:x", "")); !errors.Is(err, ErrClosed) {
		t.Fatalf("publish after close: %v", err)
	}
	if _, err := b.Subscribe(context.Background(), func(Event) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe after close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLocalBusDropsForAStalledSubscriber(t *testing.T) {
	b := NewLocal(nil)
	defer b.Close()
	release := make(chan struct{})
	if _, err := b.Subscribe(context.Background(), func(Event) { <-release }); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for range localQueue * 3 {
			_ = b.Publish(context.Background(), NewRefresh("a:1:x", ""))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Publish blocked on a stalled subscriber")
	}
	close(release)
}

func TestLocalBusRejectsAnInvalidEvent(t *testing.T) {
	b := NewLocal(nil)
	defer b.Close()
	if err := b.Publish(context.Background(), Event{Type: RefreshType}); err == nil {
		t.Fatal("published a refresh event without id and origin")
	}
}
