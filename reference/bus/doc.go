// Package bus is the refresh bus of the configuration client application: the
// Spring Cloud Bus behaviour the spec copies (section 6.2). A POST to
// /bus/refresh on one instance publishes one RefreshRemoteApplicationEvent;
// every instance subscribed to the bus refreshes its configuration.
//
// The message is Spring Cloud Bus's JSON, so the reference can share a broker
// with Spring applications:
//
//	{"type":"RefreshRemoteApplicationEvent","timestamp":1700000000000,
//	 "originService":"greeting-config:8080:3f2a...","destinationService":"**",
//	 "id":"0d1c3f7e-..."}
//
// Destinations are Spring's: "**" is every instance; "app" means "app:**";
// "app:8080" means "app:8080:**"; patterns are matched against the service id
// "<app>:<port>:<instance id>" with ":" as separator, "*" matching within one
// element and "**" matching any number of elements (AntPathMatcher rules).
//
// Two implementations share the Bus interface: Redis publish/subscribe on the
// channel "springCloudBus" (go-redis; a lost connection is re-established and
// the subscription renewed by the client library) for instances in separate
// processes, and Local for instances inside one process (reference up). Both
// deliver exactly the events that survive an encode/decode round trip, and
// both ignore (and log) a malformed message instead of failing.
//
// The bus only carries events: deciding whether an event concerns an instance,
// and the rule that the origin refreshes itself once (locally, ignoring the
// echo of its own event, as Spring does) belong to the application.
package bus
