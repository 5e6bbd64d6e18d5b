package configapp

import (
	"context"
	"net/http"

	"github.com/fortune-tck/fortune-tck/reference/bus"
)

// maxDestination bounds the destination parameter of /bus/refresh.
const maxDestination = 512

// serveBusRefresh publishes one refresh event and answers 204, as newer
// Spring does. The origin refreshes itself here, once, when the destination
// includes it; it ignores the echo of its own event (Spring's rule), and
// every other instance refreshes when the event reaches it. Without a bus,
// or when publishing fails, it answers 503 and nothing is refreshed.
func (a *App) serveBusRefresh(w http.ResponseWriter, r *http.Request, _ *snapshot) {
	if a.opts.Bus == nil {
		writeError(w, r, http.StatusServiceUnavailable,
			"No bus is bound to this instance: /bus/refresh needs a message broker; POST /refresh refreshes this instance only")
		return
	}
	dest := r.URL.Query().Get("destination")
	if len(dest) > maxDestination {
		writeError(w, r, http.StatusBadRequest, "destination longer than 512 bytes")
		return
	}
	e := bus.NewRefresh(a.serviceID, dest)
	ctx := context.WithoutCancel(r.Context())
	if err := a.opts.Bus.Publish(ctx, e); err != nil {
		a.logs.bus.Error("cannot publish the refresh event", "err", err)
		writeError(w, r, http.StatusServiceUnavailable, "Cannot publish the refresh event: "+err.Error())
		return
	}
	a.logs.bus.Info("published a refresh event", "id", e.ID, "destination", e.DestinationService)
	if e.IsFor(a.serviceID) {
		_, _ = a.Refresh(ctx) // a failure is logged; the event went out all the same
	}
	w.WriteHeader(http.StatusNoContent)
}

// onBusEvent refreshes this instance for a refresh event addressed to it
// and sent by another instance.
func (a *App) onBusEvent(e bus.Event) {
	log := a.logs.bus
	switch {
	case e.Type != bus.RefreshType:
		log.Debug("ignoring a bus event of another type", "type", e.Type, "id", e.ID)
	case e.OriginService == a.serviceID:
		log.Debug("ignoring the echo of this instance's own event; it refreshed when it sent it", "id", e.ID)
	case !e.IsFor(a.serviceID):
		log.Debug("ignoring a bus event for other instances", "id", e.ID, "destination", e.DestinationService)
	default:
		if keys, err := a.Refresh(context.Background()); err == nil {
			log.Info("refreshed by a bus event", "id", e.ID, "origin", e.OriginService, "keys", keys)
		}
	}
}
