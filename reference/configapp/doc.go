// Package configapp is the reference configuration client application (spec
// sections 2.6, 3.3, 4.5, 5.4): a Spring Boot 1.x application that reads its
// configuration from the configuration server at start and re-reads it on
// POST /refresh, or on every instance at once through the refresh bus.
//
// # Configuration
//
// At start the application GETs {config_url}/{name}/{profiles}[/{label}]
// ("default" when no profile is active; the runner reads the profiles from
// SPRING_PROFILES_ACTIVE) and merges the propertySources, the first one
// winning. While the server cannot be reached (no answer, or a 5xx) it tries
// again with exponential backoff (Options.StartAttempts, 5 tries over about
// ten seconds by default), then New fails with an error naming the URL. A
// 4xx (an unknown label) fails at once.
//
// Bound keys: greeting.displayFortune (false; relaxed spellings
// greeting.display-fortune and greeting.display_fortune too),
// greeting.message ("Greetings!!!"), quoteServiceURL (""),
// logging.level.<logger> (ERROR, WARN, INFO, DEBUG, TRACE, OFF; FATAL is
// ERROR and the YAML boolean false is OFF; root INFO), security.basic.enabled
// (true), management.security.enabled (true), security.user.name ("user")
// and security.user.password (a random UUID generated at start and logged at
// INFO as "Using default security password: <uuid> (user: <name>)"). Booleans accept
// true/false, on/off, yes/no and 1/0. A boolean that is none of these makes
// the whole configuration invalid (start fails; a refresh keeps the old one,
// 500); an invalid level is logged ("Cannot set level: ...") and skipped, as
// Spring Boot does.
//
// Every configuration is an immutable snapshot swapped atomically: a request
// sees the old or the new one, never a mix; refreshes run one at a time.
//
// # Endpoints
//
// Application endpoints (guarded by security.basic.enabled):
//
//	GET /              page "greeting": msg, and fortune only when
//	                   greeting.displayFortune is true (a built-in proverb)
//	GET /random-quote  page "quote": quote (value.quote of a GET of exactly
//	                   quoteServiceURL, in the quoters format
//	                   {"type":"success","value":{"id":1,"quote":"..."}}) and
//	                   uri (the current quoteServiceURL). 502 when the quote
//	                   source fails; 200 while quoteServiceURL is empty. With
//	                   no quote, the page says why and the JSON has an
//	                   "error" field instead of "quote"
//
// Both pages are HTML, or their model as a JSON object when the request
// prefers application/json ({"msg":..,"fortune":..}, {"quote":..,"uri":..}).
//
// Operational endpoints (guarded by management.security.enabled):
//
//	POST /refresh         re-fetch and re-bind; 200 with the sorted JSON array of
//	                      the keys added, removed or changed. 503 when the
//	                      server cannot be reached (or answers an error), 500
//	                      when the new configuration is invalid; either way the
//	                      previous configuration stays in force
//	POST /bus/refresh     publish one RefreshRemoteApplicationEvent
//	  [?destination=app:**] (package bus) and answer 204; this instance
//	                      refreshes once (when the destination includes it),
//	                      every other instance on the bus when the event
//	                      arrives, and each one that applied it publishes an
//	                      AckRemoteApplicationEvent. 503 without a bus, or
//	                      when the broker cannot be reached (nothing is
//	                      refreshed then)
//	GET  /env             {"profiles":[active profiles],
//	                       "configService:<source name>":{k:v},...}; values of
//	                      keys ending in password, secret, key, token or
//	                      vcap_services, or containing credentials, in any
//	                      case, are "******" (Boot 1.x's Sanitizer)
//	GET  /loggers         {"levels":[...],"loggers":{"ROOT":{...},...}}
//	GET  /loggers/{name}  {"configuredLevel":"DEBUG"|null,"effectiveLevel":"DEBUG"};
//	                      the effective level is the nearest configured
//	                      "."-parent's, then the root's
//	GET  /health          {"status":"UP"}
//
// With Options.Paths PathsActuator they answer at Spring Boot 2 and 3's
// actuator paths instead (and the Boot 1.x paths are unknown):
// /actuator/refresh, /actuator/busrefresh and /actuator/busrefresh/{destination}
// (the segments below busrefresh joined with ":"; there is no destination
// parameter), /actuator/loggers[/{name}], /actuator/health, and
// /actuator/env in Boot 2's shape: {"activeProfiles":[...],
// "propertySources":[{"name":"configserver:<source>","properties":
// {k:{"value":v}}}]}, masked alike.
//
// # Bus
//
// The instance's bus id is Spring's: "<name>:<port>:<instance id>", or
// "<name>:<profiles>:<port>:<instance id>" with active profiles. A refresh
// event addressed to it (package bus matches the destination) and sent by
// another instance is applied, then acknowledged; the echo of its own is
// acknowledged only; an event it cannot apply (the server is down) is not
// acknowledged; acknowledgements and events of other types are not acted on
// (other types are logged).
//
// Log levels apply to the log output too: records carry a "logger"
// attribute and pass when their logger's effective level allows them. Each
// page request logs a DEBUG line under com.example.greeting, so a level
// changed by a refresh is visible in the log.
//
// # Security
//
// HTTP Basic as Spring Boot 1.x: without valid credentials the answer is 401
// with WWW-Authenticate: Basic realm="Spring" and a JSON error body, checked
// before the route (an unknown path is an application endpoint). Credentials
// are compared in constant time. Unlike Spring Boot 1.x, which builds its
// security filters once, the security keys are re-bound on refresh like the
// others; the generated password stays the same for the process lifetime
// and is in force whenever security.user.password is unset.
//
// Other answers: a wrong method is 405 with Allow; an unknown path 404; a
// request body over 64 KiB 413. Every error body is Spring Boot's
// {"timestamp","status","error","message","path"}.
package configapp
