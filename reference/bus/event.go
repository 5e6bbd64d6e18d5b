package bus

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

const (
	// Channel is the publish/subscribe channel, named as Spring's broker
	// destination.
	Channel = "springCloudBus"
	// RefreshType is the type of a refresh event.
	RefreshType = "RefreshRemoteApplicationEvent"
	// AllServices is the destination that matches every instance.
	AllServices = "**"
	// MaxMessageSize bounds an accepted message: Spring's events are a few
	// hundred bytes, so anything far larger is not one.
	MaxMessageSize = 64 << 10
	// maxField bounds the service ids and destinations an event may carry.
	maxField = 1024
)

// Event is a Spring Cloud Bus remote application event. Only refresh events
// are published here; events of other types (acknowledgements, environment
// changes) are decoded so a subscriber can see and ignore them.
type Event struct {
	Type               string `json:"type"`
	Timestamp          int64  `json:"timestamp"`
	OriginService      string `json:"originService"`
	DestinationService string `json:"destinationService"`
	ID                 string `json:"id"`
}

// NewRefresh returns a refresh event from the service origin (a ServiceID) to
// destination, normalised as Spring does; an empty destination means all.
func NewRefresh(origin, destination string) Event {
	return Event{
		Type:               RefreshType,
		Timestamp:          time.Now().UnixMilli(),
		OriginService:      origin,
		DestinationService: NormalizeDestination(destination),
		ID:                 newUUID(),
	}
}

// ServiceID is Spring's instance id "<app>:<port>:<instance id>", which
// destinations are matched against.
func ServiceID(app string, port int, instanceID string) string {
	return app + ":" + strconv.Itoa(port) + ":" + instanceID
}

// IsFor reports whether the event is addressed to the service serviceID.
func (e Event) IsFor(serviceID string) bool {
	return Match(e.DestinationService, serviceID)
}

// Encode is the message published on the bus.
func (e Event) Encode() ([]byte, error) { return json.Marshal(e) }

// Decode parses and checks a bus message. The destination is normalised (a
// message from a client that did not do it still reaches its instances).
func Decode(data []byte) (Event, error) {
	var e Event
	if len(data) > MaxMessageSize {
		return e, fmt.Errorf("message of %d bytes exceeds %d", len(data), MaxMessageSize)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("not an event: %w", err)
	}
	if err := e.check(); err != nil {
		return e, err
	}
	e.DestinationService = NormalizeDestination(e.DestinationService)
	return e, nil
}

func (e Event) check() error {
	switch {
	case e.Type == "":
		return errors.New("event without a type")
	case len(e.OriginService) > maxField || len(e.DestinationService) > maxField || len(e.ID) > maxField:
		return fmt.Errorf("event field longer than %d bytes", maxField)
	case e.Type != RefreshType:
		return nil
	case e.ID == "":
		return errors.New("refresh event without an id")
	case e.OriginService == "":
		return errors.New("refresh event without an originService")
	}
	return nil
}

// NormalizeDestination applies Spring's rule: empty means "**", and a
// destination of at most two elements that does not end in ":**" addresses
// every instance under it ("app" -> "app:**", "app:8080" -> "app:8080:**").
func NormalizeDestination(d string) string {
	if d == "" || d == AllServices {
		return AllServices
	}
	if strings.Count(d, ":") <= 1 && !strings.HasSuffix(d, ":**") {
		return d + ":**"
	}
	return d
}

// newUUID returns a random (version 4) UUID, the id Spring gives events.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
