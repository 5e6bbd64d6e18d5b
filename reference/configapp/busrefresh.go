package configapp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/bus"
)

// maxDestination bounds the destination of a bus refresh.
const maxDestination = 512

// ackTimeout bounds the publication of an acknowledgement.
const ackTimeout = 5 * time.Second

// serveBusRefresh publishes one refresh event and answers 204, as newer
// Spring does. The origin refreshes itself here, once, when the destination
// includes it; it ignores the echo of its own event (Spring's rule), and
// every other instance refreshes when the event reaches it. Without a bus,
// or when publishing fails, it answers 503 and nothing is refreshed.
func (a *App) serveBusRefresh(w http.ResponseWriter, r *http.Request, _ *snapshot) {
	if a.opts.Bus == nil {
		writeError(w, r, http.StatusServiceUnavailable,
			"No bus is bound to this instance: the bus refresh needs a message broker; the refresh endpoint refreshes this instance only")
		return
	}
	dest := a.destination(r)
	if len(dest) > maxDestination {
		writeError(w, r, http.StatusBadRequest, "destination longer than 512 bytes")
		return
	}
	e := bus.NewRefresh(a.serviceID, dest)
	ctx := context.WithoutCancel(r.Context())
	if err := a.opts.Bus.Publish(ctx, e); err != nil {
		a.logs.bus.Error("cannot publish the refresh event", "err", err)
		message := "Cannot publish the refresh event: " + err.Error()
		if errors.Is(err, bus.ErrUnavailable) {
			message = "Cannot publish the refresh event: the message broker cannot be reached, so no instance was refreshed (" + err.Error() + ")"
		}
		writeError(w, r, http.StatusServiceUnavailable, message)
		return
	}
	a.logs.bus.Info("published a refresh event", "id", e.ID, "destination", e.DestinationService)
	if e.IsFor(a.serviceID) {
		_, _ = a.Refresh(ctx) // a failure is logged; the event went out all the same
	}
	w.WriteHeader(http.StatusNoContent)
}

// destination is the bus refresh's destination: Boot 1.x's destination
// parameter, or the path below Boot 2's busrefresh endpoint, whose
// segments Spring joins with ":" (a selector matching all remaining
// segments), so /busrefresh/app/8080 is "app:8080".
func (a *App) destination(r *http.Request) string {
	if a.opts.Paths == PathsActuator {
		segments := strings.FieldsFunc(r.PathValue(destinationValue), func(c rune) bool { return c == '/' })
		return strings.Join(segments, ":")
	}
	return r.URL.Query().Get("destination")
}

// onBusEvent acts on the events of the bus as Spring's BusConsumer does: a
// refresh addressed to this instance and sent by another is applied, then
// acknowledged; the echo of this instance's own refresh (applied when it
// was sent) is acknowledged only. Acknowledgements and events of other
// types are not acted on.
func (a *App) onBusEvent(e bus.Event) {
	log := a.logs.bus
	switch {
	case e.Type == bus.AckType:
		log.Debug("a bus acknowledgement", "ackId", e.AckID, "origin", e.OriginService)
	case e.Type != bus.RefreshType:
		log.Info("ignoring a bus event of another type: this application acts on refresh events only", "type", e.Type, "id", e.ID)
	case !e.IsFor(a.serviceID):
		log.Debug("ignoring a bus event for other instances", "id", e.ID, "destination", e.DestinationService)
	case e.IsFrom(a.serviceID):
		log.Debug("ignoring the echo of this instance's own event; it refreshed when it sent it", "id", e.ID)
		a.acknowledge(e)
	default:
		if keys, err := a.Refresh(context.Background()); err == nil {
			log.Info("refreshed by a bus event", "id", e.ID, "origin", e.OriginService, "keys", keys)
			a.acknowledge(e)
		}
	}
}

// acknowledge publishes the acknowledgement of e.
func (a *App) acknowledge(e bus.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), ackTimeout)
	defer cancel()
	ack := bus.NewAck(a.serviceID, e)
	if err := a.opts.Bus.Publish(ctx, ack); err != nil {
		a.logs.bus.Warn("cannot acknowledge a bus event", "id", e.ID, "err", err)
		return
	}
	a.logs.bus.Debug("acknowledged a bus event", "id", e.ID, "ackId", ack.ID)
}
