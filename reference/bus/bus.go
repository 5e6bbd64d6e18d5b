package bus

import (
	"context"
	"errors"
)

// Handler receives the events of the bus. A subscription calls it for one
// event at a time, in arrival order, on a goroutine of its own.
type Handler func(Event)

// Bus carries events between the instances of an application.
type Bus interface {
	// Publish sends e to every subscriber, the publisher's own included.
	Publish(ctx context.Context, e Event) error
	// Subscribe calls h for every event published from now on (the
	// subscription is in place when it returns). unsubscribe stops the
	// deliveries and waits for a running h to return, so it must not be
	// called from h.
	Subscribe(ctx context.Context, h Handler) (unsubscribe func(), err error)
	// Close ends every subscription and releases the connection.
	Close() error
}

// ErrClosed is returned by a closed bus.
var ErrClosed = errors.New("bus: closed")

// Both implementations are buses.
var (
	_ Bus = (*AMQP)(nil)
	_ Bus = (*Local)(nil)
)
