@spec-1.4 @spec-2.7 @spec-4.6 @spec-8.4
Feature: Rate limiting a route with a BackendTrafficPolicy
  A BackendTrafficPolicy (gateway.envoyproxy.io/v1alpha1) names the HTTPRoutes it applies to in
  spec.targetRefs, and no other route, and limits the requests per time unit that reach them, each route with
  counters of its own: spec.rateLimit.global.rules[] each allow limit.requests per limit.unit (Second, Minute,
  Hour, ...). Without clientSelectors one counter serves the whole route, whatever the request's headers. A
  header selector of type Distinct gives every value of that header a counter of its own; one of type Exact
  admits only requests whose header has exactly its value; the headers of one selector must all match, and a
  request no rule matches is neither counted nor limited.

  Windows are fixed and aligned to the epoch: a Minute window ends at every full minute, an Hour window at
  every full hour. Every response of a limited route carries x-ratelimit-limit ("<limit>, <limit>;w=<window
  seconds>"), x-ratelimit-remaining (requests left in the window, one less for every admitted request on the
  same counter) and x-ratelimit-reset (the whole seconds from the answer to the end of its window, so never
  the whole window once the window has run a few seconds). A request over the limit gets 429 with
  x-proxy-ratelimited: true and does not reach the upstream. With type Global the counters are shared by every
  gateway instance.

  Each scenario runs an upstream that counts the requests it receives, and applies the policies of
  features/testdata/gateway/ under names of its own: {route} is the scenario's route and {host} the host it
  serves; {other_route} and {other_host} are a second route and its host; {caller} is a value of x-user-id no
  other scenario sends; every request carries an x-request-id of its own, written {request_id} for the request
  a step names. A policy applies to the route a step names once every gateway instance enforces it there (the
  other routes a policy names are awaited as long, and the outcome steps judge them); the scenario's requests
  then fall into one window. An invalid policy is refused as a whole, when it is applied or when the gateway
  reads it, and holds back no other manifest; a policy applied after it taking effect shows that it was read.

  A rule's cost (Envoy Gateway's rules[].cost) changes what a request counts: cost.request (from: Number,
  number: n) adds n instead of 1 when the request arrives, and a request whose count then exceeds the limit gets
  429; cost.response adds its number once the response is complete, limiting the requests that follow (Envoy
  counts it when the stream ends; the scenarios send their next request after reading the whole answer). A
  cost that is negative, not a number, or from a source other than Number or Metadata makes the policy invalid.

  Background:
    Given an upstream that counts the requests it receives
    And the route "{route}" for the host "{host}" leads to the upstream

  @spec-3.2 @spec-3.2-remaining-n @spec-3.2-remaining-0 @spec-8.3 @spec-8.4-x-ratelimit-limit @spec-8.4-x-ratelimit-remaining @spec-8.4-x-ratelimit-reset @spec-7 @spec-7-rate-limited @spec-2.7-apiVersion @spec-2.7-kind @spec-2.7-spec.rateLimit.type @spec-2.7-spec.rateLimit.global.rules @spec-2.7-rules.limit.requests @spec-9.1
  Scenario: 3 per Minute: requests 1 to 3 pass with 2, 1 and 0 left; request 4 gets 429 and does not reach the upstream
    Given the policy "three-per-minute.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "2"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 passes with x-ratelimit-remaining "0"
    And every answer has the header "x-ratelimit-limit" "3, 3;w=60"
    And request 4 is answered 429 with the headers:
      | header                | value     |
      | x-proxy-ratelimited   | true      |
      | x-ratelimit-limit     | 3, 3;w=60 |
      | x-ratelimit-remaining | 0         |
      | date                  | any       |
    And the x-ratelimit-reset of request 4 is the number of seconds left in its 60-second window
    And the upstream received 3 requests for the route

  @spec-3.2-window-elapses @spec-8.4-x-ratelimit-reset @spec-2.7-rules.limit.unit
  Scenario: x-ratelimit-reset is the number of seconds until the Minute window ends
    Given the policy "three-per-minute.yaml" applies to the route
    When 1 request with "x-user-id: {caller}" is sent to the route
    Then request 1 passes with x-ratelimit-remaining "2"
    And the x-ratelimit-reset of request 1 is the number of seconds left in its 60-second window

  @spec-8.2 @spec-5.6 @spec-2.7-rules.clientSelectors @spec-2.7-clientSelectors.headers @spec-2.7-headers.type @spec-2.7-headers.name
  Scenario: Distinct gives each x-user-id its own counter
    Given the policy "three-per-minute.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}-a" are sent to the route
    And 1 request with "x-user-id: {caller}-b" is sent to the route
    Then request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And request 5 passes with x-ratelimit-remaining "2"

  @spec-2.7-headers.type @capability-gateway.exact-headers
  Scenario: An Exact header selector limits only the requests with exactly its value
    Given the policy "gold-tier.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}" and "x-tier: gold" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "1"
    And request 2 passes with x-ratelimit-remaining "0"
    And request 3 is answered 429
    When 3 requests with "x-user-id: {caller}" and "x-tier: silver" are sent to the route
    Then requests 4 to 6 pass without rate-limit headers
    And the upstream received 5 requests for the route

  @spec-8.5 @capability-gateway.distinct-absent
  Scenario: A request without the Distinct header is not counted by that rule
    Given the policy "three-per-minute.yaml" applies to the route
    When 5 requests without "x-user-id" are sent to the route
    Then every request passes without rate-limit headers
    And the upstream received 5 requests for the route

  @spec-8.1 @spec-8.2 @spec-8.4-x-ratelimit-remaining
  Scenario: Without clientSelectors one counter serves the whole route, whatever the headers
    Given the policy "five-per-minute-per-route.yaml" applies to the route
    When requests with "x-user-id: {caller}-a" and "x-user-id: {caller}-b" in turn are sent to the route until one is answered 429, 6 at most
    Then requests 1 and 2 pass
    And each request before the last passes with an x-ratelimit-remaining one less than the request before it
    And the last request is answered 429 with the header "x-ratelimit-limit" "5, 5;w=60"
    And the upstream received every request that passed

  @spec-2.7-spec.targetRefs @spec-2.7-spec.targetRefs.group @spec-2.7-spec.targetRefs.kind @spec-2.7-spec.targetRefs.name @spec-2.7-metadata.name
  Scenario: A policy limits the route its targetRefs name and no other
    Given the route "{other_route}" for the host "{other_host}" leads to the upstream
    And the policy "three-per-minute-for-other-route.yaml" applies to the route "{other_route}"
    When 4 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 4 pass without rate-limit headers
    When 4 requests with "x-user-id: {caller}" are sent to the route "{other_route}"
    Then request 7 passes with x-ratelimit-remaining "0"
    And request 8 is answered 429
    And the upstream received 4 requests for the route
    And the upstream received 3 requests for the route "{other_route}"

  @spec-2.7-spec.targetRefs @spec-2.7-spec.targetRefs.name @spec-3.2 @spec-3.2-remaining-n @spec-3.2-remaining-0
  Scenario: A policy that names two routes limits each of them, each with a counter of its own
    Given the route "{other_route}" for the host "{other_host}" leads to the upstream
    And the policy "three-per-minute-for-both-routes.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}" are sent to the route
    And 4 requests with "x-user-id: {caller}" are sent to the route "{other_route}"
    Then request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And request 5 passes with x-ratelimit-remaining "2"
    And request 6 passes with x-ratelimit-remaining "1"
    And request 7 passes with x-ratelimit-remaining "0"
    And request 8 is answered 429
    And the upstream received 3 requests for the route
    And the upstream received 3 requests for the route "{other_route}"

  @spec-2.7-rules.limit.requests
  Scenario: A policy with a rule that has no limit.requests is refused, and the policies after it still apply
    Given the route "{other_route}" for the host "{other_host}" leads to the upstream
    When the invalid policy "without-requests.yaml" is offered for the route
    And the policy "three-per-minute-for-other-route.yaml" applies to the route "{other_route}"
    And 4 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 4 pass without rate-limit headers
    And the upstream received 4 requests for the route

  @spec-2.7-spec.rateLimit.global.rules @capability-gateway.cost
  Scenario: A request cost of 2 takes two from the counter, and a request that finds less left gets 429
    Given the policy "five-per-minute-request-cost-two.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "3"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 is answered 429
    And every answer has the header "x-ratelimit-limit" "5, 5;w=60"
    And the upstream received 2 requests for the route

  @spec-2.7-spec.rateLimit.global.rules @capability-gateway.cost
  Scenario: A response cost of 2 is counted once the response is complete, and limits the requests that follow
    Given the policy "five-per-minute-response-cost-two.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "4"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 is answered 429
    And the upstream received 2 requests for the route

  @capability-gateway.cost
  Scenario Outline: A policy whose cost <flaw> is refused, and the policies after it still apply
    Given the route "{other_route}" for the host "{other_host}" leads to the upstream
    When the invalid policy "<policy>" is offered for the route
    And the policy "three-per-minute-for-other-route.yaml" applies to the route "{other_route}"
    And 4 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 4 pass without rate-limit headers
    And the upstream received 4 requests for the route

    Examples:
      | flaw                        | policy                 |
      | is negative                 | cost-negative.yaml     |
      | is not a number             | cost-not-a-number.yaml |
      | comes from a request header | cost-from-header.yaml  |

  @spec-3.2-window-elapses @spec-2.7-rules.limit.unit @capability-gateway.all-units
  Scenario: When a Second window elapses the counter starts again
    Given the policy "one-per-second.yaml" applies to the route
    When 2 requests with "x-user-id: {caller}" are sent to the route within one Second window
    Then request 1 passes with x-ratelimit-remaining "0"
    And request 2 is answered 429
    When the x-ratelimit-reset of request 2 has elapsed
    And 1 request with "x-user-id: {caller}" is sent to the route
    Then request 3 passes with x-ratelimit-remaining "0"

  @spec-2.7-rules.limit.unit @spec-8.4-x-ratelimit-limit @spec-8.4-x-ratelimit-reset @capability-gateway.all-units
  Scenario: An Hour limit has a 3600-second window, reset at the full hour
    Given the policy "two-per-hour.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "1"
    And request 2 passes with x-ratelimit-remaining "0"
    And request 3 is answered 429
    And every answer has the header "x-ratelimit-limit" "2, 2;w=3600"
    And the x-ratelimit-reset of request 3 is the number of seconds left in its 3600-second window

  @spec-4.6 @capability-gateway.https
  Scenario Outline: <method> over HTTPS is limited the same way
    Given the policy "three-per-minute.yaml" applies to the route
    When 4 <method> requests with "x-user-id: {caller}" are sent to the route over HTTPS
    Then request 1 passes with x-ratelimit-remaining "2"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429

    Examples:
      | method |
      | GET    |
      | HEAD   |

  @spec-8.1 @capability-gateway.instances
  Scenario: Two gateway instances share one Global counter
    Given the policy "three-per-minute.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}" are sent to the route, alternately through instances 1 and 2
    Then request 1 passes with x-ratelimit-remaining "2"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And the upstream received 3 requests for the route

  @spec-6.3 @capability-gateway.access-log
  Scenario: The access log line of a request stopped by the limit
    Given the policy "three-per-minute.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}" are sent to the route
    Then request 4 is answered 429
    And the access log line of request 4 has:
      | field                     | value                  |
      | response_code             | 429                    |
      | response_flags            | RL                     |
      | response_code_details     | request_rate_limited   |
      | upstream_host             | -                      |
      | method                    | GET                    |
      | :authority                | {host}                 |
      | x-request-id              | {request_id}           |
      | start_time                | any                    |
      | protocol                  | any                    |
      | bytes_received            | any                    |
      | bytes_sent                | any                    |
      | duration                  | any                    |
      | user-agent                | any                    |
      | upstream_cluster          | any                    |
      | downstream_remote_address | any                    |
      | requested_server_name     | any                    |
      | route_name                | any                    |
