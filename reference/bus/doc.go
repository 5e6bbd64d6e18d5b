// Package bus is the refresh bus of the configuration client application: Spring Cloud Bus as the spec copies
// it (section 6.2), on the wire Spring applications use, so that reference instances and Spring instances share
// one bus. A POST to /bus/refresh on one instance publishes one RefreshRemoteApplicationEvent; every instance it
// addresses refreshes its configuration and answers with an AckRemoteApplicationEvent.
//
// The messages are the JSON Jackson writes for Spring Cloud Bus's event classes (spring-cloud-bus,
// org.springframework.cloud.bus.event), fields in their order, timestamp in epoch milliseconds:
//
//	{"type":"RefreshRemoteApplicationEvent","timestamp":1700000000000,
//	 "originService":"greeting-config:8080:3f2a...","destinationService":"**","id":"0d1c3f7e-..."}
//	{"type":"AckRemoteApplicationEvent","timestamp":1700000000042,
//	 "originService":"greeting-config:8082:9b1e...","destinationService":"**","id":"7a9c...",
//	 "ackId":"0d1c3f7e-...","ackDestinationService":"**",
//	 "event":"org.springframework.cloud.bus.event.RefreshRemoteApplicationEvent"}
//
// Service ids and destinations are Spring's (IdUtils, PathDestinationFactory, DefaultBusPathMatcher): an
// instance is "<app>:<port>:<random>", or "<app>:<profiles>:<port>:<random>" with active profiles; a
// destination "app" or "app:8080" is sent as "app:**" or "app:8080:**"; patterns match with AntPathMatcher's
// rules and ":" as separator, "*" within an element and "**" across elements, and a service id that lists
// several profiles matches when it does with any one of them. A received destination is matched as written, as
// Spring matches it.
//
// Two implementations share the Bus interface. AMQP runs on RabbitMQ with Spring Cloud Stream's Rabbit binder
// topology: the durable topic exchange "springCloudBus", messages routed with that name as key, persistent,
// content type application/json, and one exclusive auto-delete queue "springCloudBus.anonymous.<id>" per
// subscriber bound with "#"; it reconnects on its own and answers ErrUnavailable while the broker cannot be
// reached. Local is the bus of instances inside one process (reference up). Both deliver exactly the events that
// survive an encode/decode round trip; AMQP logs and drops a message that is not an event.
//
// The bus only carries events: deciding whether an event concerns an instance, refreshing, acknowledging, and
// the rule that the origin refreshes once (locally, ignoring the echo of its own event, as Spring does) belong
// to the application.
package bus
