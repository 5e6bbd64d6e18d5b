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
	// Exchange is Spring Cloud Bus's destination (spring.cloud.bus.destination, BusConstants.DESTINATION).
	Exchange = "springCloudBus"
	// RefreshType and AckType are the types of a refresh event and of its acknowledgement: Jackson names an
	// event by its simple class name in "type".
	RefreshType = "RefreshRemoteApplicationEvent"
	AckType     = "AckRemoteApplicationEvent"
	// RefreshClass is what an acknowledgement of a refresh says in "event": the class's full name.
	RefreshClass = "org.springframework.cloud.bus.event." + RefreshType
	// AllServices is the destination that matches every instance.
	AllServices = "**"
	// MaxMessageSize bounds an accepted message: Spring's events are a few hundred bytes, so anything far
	// larger is not one.
	MaxMessageSize = 64 << 10
	// maxField bounds the service ids and destinations an event may carry.
	maxField = 1024
)

// noDestination is the destination of an event whose message has no destinationService: Spring's event keeps
// the placeholder its deserializing constructor sets, which matches no instance.
const noDestination = "____transient_destination___:**"

// Event is a Spring Cloud Bus remote application event: a refresh, an acknowledgement, or an event of another
// type that a subscriber sees and ignores. The JSON is what Jackson writes for Spring's classes, fields in
// their order; the acknowledgement's three fields are absent from other events.
type Event struct {
	Type               string `json:"type"`
	Timestamp          int64  `json:"timestamp"` // epoch milliseconds (ApplicationEvent.getTimestamp)
	OriginService      string `json:"originService"`
	DestinationService string `json:"destinationService"`
	ID                 string `json:"id"`
	// AckID and AckDestinationService are the id and destination of the acknowledged event, and Event its
	// class (AckRemoteApplicationEvent).
	AckID                 string `json:"ackId,omitempty"`
	AckDestinationService string `json:"ackDestinationService,omitempty"`
	Event                 string `json:"event,omitempty"`
}

// NewRefresh returns a refresh event from the service origin (a ServiceID) to destination, normalised as
// Spring's PathDestinationFactory does; an empty destination means all.
func NewRefresh(origin, destination string) Event {
	return Event{
		Type:               RefreshType,
		Timestamp:          time.Now().UnixMilli(),
		OriginService:      origin,
		DestinationService: NormalizeDestination(destination),
		ID:                 newUUID(),
	}
}

// NewAck is the acknowledgement the service origin sends for an event it received and applied, as Spring's
// BusConsumer does: addressed to every service (spring.cloud.bus.ack.destination-service is unset), naming the
// event's id, destination and class.
func NewAck(origin string, of Event) Event {
	return Event{
		Type:                  AckType,
		Timestamp:             time.Now().UnixMilli(),
		OriginService:         origin,
		DestinationService:    AllServices,
		ID:                    newUUID(),
		AckID:                 of.ID,
		AckDestinationService: of.DestinationService,
		Event:                 "org.springframework.cloud.bus.event." + of.Type,
	}
}

// ServiceID is Spring's bus id (IdUtils): "<app>:<port>:<instance id>", and with active profiles
// "<app>:<profiles, comma-separated>:<port>:<instance id>". Destinations are matched against it.
func ServiceID(app string, profiles []string, port int, instanceID string) string {
	if len(profiles) > 0 {
		app += ":" + strings.Join(profiles, ",")
	}
	return app + ":" + strconv.Itoa(port) + ":" + instanceID
}

// IsFor reports whether the event is addressed to the service serviceID (PathServiceMatcher.isForSelf): an
// empty destination is every service.
func (e Event) IsFor(serviceID string) bool {
	return strings.TrimSpace(e.DestinationService) == "" || MatchService(e.DestinationService, serviceID)
}

// IsFrom reports whether the service serviceID sent the event (PathServiceMatcher.isFromSelf: the origin is
// matched as a pattern, as the destination is).
func (e Event) IsFrom(serviceID string) bool { return MatchService(e.OriginService, serviceID) }

// Encode is the message published on the bus.
func (e Event) Encode() ([]byte, error) { return json.Marshal(e) }

// Decode parses and checks a bus message as Spring reads it: fields it does not know are ignored, a refresh
// without an id gets a fresh one (as Spring's deserializing constructor gives it), and the destination is taken
// as written, neither normalised nor defaulted (a missing one addresses nobody). What Spring cannot read (not
// JSON, no type) or would fail on (a refresh without an origin) is an error.
func Decode(data []byte) (Event, error) {
	var msg struct {
		Event
		DestinationService *string `json:"destinationService"`
	}
	if len(data) > MaxMessageSize {
		return Event{}, fmt.Errorf("message of %d bytes exceeds %d", len(data), MaxMessageSize)
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return Event{}, fmt.Errorf("not an event: %w", err)
	}
	e := msg.Event
	e.DestinationService = noDestination
	if msg.DestinationService != nil {
		e.DestinationService = *msg.DestinationService
	}
	if e.ID == "" && e.Type == RefreshType {
		e.ID = newUUID()
	}
	return e, e.check()
}

func (e Event) check() error {
	switch {
	case e.Type == "":
		return errors.New("event without a type")
	case len(e.OriginService) > maxField || len(e.DestinationService) > maxField || len(e.ID) > maxField ||
		len(e.AckID) > maxField || len(e.AckDestinationService) > maxField || len(e.Event) > maxField:
		return fmt.Errorf("event field longer than %d bytes", maxField)
	case e.Type == RefreshType && e.OriginService == "":
		return errors.New("refresh event without an originService")
	}
	return nil
}

// NormalizeDestination applies Spring's PathDestinationFactory: empty means "**", and a destination of at
// most two elements that does not end in ":**" addresses every instance under it ("app" -> "app:**",
// "app:8080" -> "app:8080:**").
func NormalizeDestination(d string) string {
	if d == "" || d == AllServices {
		return AllServices
	}
	if strings.Count(d, ":") <= 1 && !strings.HasSuffix(strings.ToLower(d), ":**") {
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
