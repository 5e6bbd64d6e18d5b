@spec-1.4 @spec-2.7 @spec-4.6 @spec-8.4
Feature: Rate limiting a route with a BackendTrafficPolicy
  A BackendTrafficPolicy (gateway.envoyproxy.io/v1alpha1) names the HTTPRoutes it applies to in
  spec.targetRefs, and no other route, and limits the requests per time unit that reach them, each route with
  counters of its own: spec.rateLimit.global.rules[] each allow limit.requests per limit.unit (Second, Minute,
  Hour, ...). Without clientSelectors one counter serves the whole route, whatever the request's headers. A
  header selector of type Distinct gives every value of that header a counter of its own; one of type Exact
  admits only requests whose header has exactly its value (or, with invert, any other value); the headers of one
  selector, and the selectors of one rule, must all hold, and a request no rule matches is neither counted nor
  limited. Every rule that matches a request counts it, and a request over any one limit gets 429.

  Windows are fixed and aligned to the epoch: a Minute window ends at every full minute, an Hour window at
  every full hour. Every response of a limited route carries x-ratelimit-limit ("<limit>, <limit>;w=<window
  seconds>", one "<limit>;w=<window>" item per rule that counted the request, the first number that of the rule
  with the fewest requests left), x-ratelimit-remaining (requests left in the window, one less for every
  admitted request on the same counter) and x-ratelimit-reset (the whole seconds from the answer to the end of
  its window, so never the whole window once the window has run a few seconds). A request over the limit gets
  429 with x-proxy-ratelimited: true and does not reach the upstream. With type Global the counters are shared
  by every gateway instance.

  Each scenario runs an upstream that counts the requests it receives, and applies the policies of
  features/testdata/gateway/ under names of its own: {route} is the scenario's route and {host} the host it
  serves; {other_route} and {other_host} are a second route and its host; {caller} is a value of x-user-id no
  other scenario sends; every request carries an x-request-id of its own, written {request_id} for the request
  a step names. A policy applies to the route a step names once every gateway instance enforces it there (the
  other routes a policy names are awaited as long, and the outcome steps judge them); the scenario's requests
  then fall into one window. A scenario whose behaviour does not depend on the unit counts per Hour, so that its
  requests fall into one window without waiting for one; one that checks the Minute unit, applied in the last
  8 seconds of a minute or its first 2, waits for the next minute to run that long. An invalid policy is refused as a whole, when it is applied or when the gateway
  reads it, and holds back no other manifest; a policy applied after it taking effect shows that it was read.

  A rule's cost (Envoy Gateway's rules[].cost) changes what a request counts: cost.request (from: Number,
  number: n) adds n instead of 1 when the request arrives, and a request whose count then exceeds the limit gets
  429; cost.response adds its number once the response is complete, limiting the requests that follow (Envoy
  counts it when the stream ends; the scenarios send their next request after reading the whole answer). A
  cost that is negative, not a number, or from a source other than Number or Metadata makes the policy invalid.

  The boundaries. What users of the gateway rely on, row by row, with where it is written down and the scenario
  that walks it. Sources: [spec x.y] the interface's section x.y (the scenarios' @spec-x.y tags); [anchor] the
  project's anchor notes on the gateway (gateway-rate-limit.md), here checked against Envoy Gateway's and
  envoyproxy/ratelimit's own source and documentation, which the other sources name; [EG api] Envoy Gateway's
  api/v1alpha1/ratelimit_types.go and [EG crd] the CRD generated from it
  (charts/gateway-helm/charts/crds/crds/generated/gateway.envoyproxy.io_backendtrafficpolicies.yaml); [EG task]
  its documentation, tasks/traffic/global-rate-limit; [EG translator] internal/gatewayapi/backendtrafficpolicy.go
  (buildRateLimitRule; applyTrafficFeatureToRoute: a route whose policy fails translation gets a 500 direct
  response, since v1.2.0, #4092); [RLS] envoyproxy/ratelimit, which Envoy Gateway deploys to count Global limits
  (src/limiter/cache_key.go: a counter is named after the domain, the descriptor entries and the window start,
  not the limit; src/utils/utilities.go GetHitsAddends: a descriptor's hits_addend of 0 checks without counting;
  src/redis/fixed_cache_impl.go: every descriptor of a request is counted, those over their limit too).

  | capability           | row                                      | what the gateway does                                   | source                  | scenario                                   |
  | limits               | 3 a Minute: requests 2, 3 and 4          | 2 and 3 pass with 1 and 0 left, 4 gets 429              | spec 8.3, 3.2           | 3 per Minute: requests 1 to 3 pass ...     |
  | limits               | 1 a Minute: requests 1 and 2             | 1 passes with 0 left, 2 gets 429                        | spec 8.1                | A limit of 1 ...                           |
  | limits               | 0 a Minute (the CRD's minimum)           | every request it counts gets 429, "0, 0;w=60"           | EG crd minimum: 0; RLS  | A limit of 0 ...                           |
  | counter life         | first use                                | limit - 1 left                                          | spec 3.2                | 3 per Minute ...                           |
  | counter life         | after a 429 from another rule            | the request still counts for every rule it matched      | RLS fixed_cache_impl    | Every rule of a policy counts ...          |
  | counter life         | the window rolls over                    | the counter starts again                                | spec 3.2                | When a Second window elapses ...           |
  | counter life         | another header value                     | a counter of its own                                    | spec 8.2                | Distinct gives another value ...           |
  | counter life         | a value that differs in case only        | a counter of its own (values are compared exactly)      | RLS cache_key           | Distinct gives a value that differs ...    |
  | counter life         | the policy's limit changed in a window   | the counter is kept: 3 spent of 5 leaves 2              | RLS cache_key           | A policy changed within a window ...       |
  | counter life         | the route removed and added again        | the counter is kept within the window                   | RLS cache_key           | A route removed and added again ...        |
  | units                | Second, Minute, Hour, Day                | w=1, 60, 3600, 86400; reset at the window's end         | EG api RateLimitUnit    | When a Second window ...; The <unit> unit  |
  | selectors            | no clientSelectors                       | one counter for the route, whatever the headers         | spec 8.2                | Without clientSelectors ...                |
  | selectors            | Distinct, header absent                  | not counted, no rate-limit headers                      | spec 8.5; anchor        | A request without the Distinct header ...  |
  | selectors            | Exact (the default type)                 | only exactly that value is counted                      | EG api HeaderMatch      | An Exact header selector ...               |
  | selectors            | Exact with invert beside Distinct        | every value but that one has a counter; it has none     | EG task (except admin)  | Every x-user-id but the admin's ...        |
  | selectors            | two clientSelectors in one rule          | counted only when both hold                             | EG api RateLimitRule    | The clientSelectors of a rule ...          |
  | selectors            | header name in capitals (X-TIER)         | matches x-tier: names are case-insensitive              | EG api HeaderMatch.name | The clientSelectors of a rule ...          |
  | selectors            | two rules in one policy                  | each counts; any over its limit refuses; both in limit  | EG api GlobalRateLimit  | Every rule of a policy counts ...          |
  | cost                 | request cost 2, 1 left of 5              | 429                                                     | EG api RateLimitCost    | A request cost of 2 against 5 ...          |
  | cost                 | request cost 2, exactly 2 left of 4      | passes with 0 left; the next gets 429                   | EG api RateLimitCost    | A request cost of 2 against 4 ...          |
  | cost                 | request cost 0                           | checks without counting: 5 of 5 left every time         | EG api number; RLS      | A request cost of 0 ...                    |
  | cost                 | response cost 2                          | counted once the response is complete                   | EG api RateLimitCost    | A response cost of 2 ...                   |
  | order of creation    | policy before the route it names         | the route is limited once it is routed                  | Gateway API policy      | A route added after the policy ...         |
  | order of creation    | route removed and added again            | limited again, same counter                             | EG translator           | A route removed and added again ...        |
  | order of creation    | policy changed                           | the new limit applies to the counters already spent     | RLS cache_key           | A policy changed within a window ...       |
  | errors: API server   | rule without limit.requests              | refused at apply: limit.requests: Required value        | EG crd required         | A policy the API server refuses ...        |
  | errors: API server   | unit Fortnight                           | refused: limit.unit: Unsupported value: "Fortnight"     | EG crd enum             | A policy the API server refuses ...        |
  | errors: API server   | clientSelector without a condition       | refused: "at least one of headers, methods, path,       | EG crd rule             | A policy the API server refuses ...        |
  |                      |                                          | sourceCIDR or queryParams must be specified"            |                         |                                            |
  | errors: API server   | cost not a number; cost from Header      | refused: "must be of type integer"; Unsupported value   | EG crd                  | A policy the API server refuses ...        |
  | errors: API server   | cost -1                                  | stored (format int64, no minimum) but not the uint64 of | EG api Number *uint64   | A policy the API server refuses ...        |
  |                      |                                          | the API: never applied; the suite asks that it limits   |                         |                                            |
  |                      |                                          | nothing and holds back no other policy                  |                         |                                            |
  | errors: translator   | Distinct with invert                     | Accepted False, Invalid, "RateLimit: unable to translate| EG translator           | A policy Envoy Gateway cannot translate ...|
  |                      |                                          | rateLimit.Invert is not applicable for distinct header  |                         |                                            |
  |                      |                                          | match type."; its routes answer 500                     |                         |                                            |
  | errors: translator   | Distinct with a value; Exact without one | "RateLimit: unable to translate rateLimit. Either the   | EG translator           | A policy Envoy Gateway cannot translate ...|
  |                      |                                          | header.Type is not valid or the header is missing a     |                         |                                            |
  |                      |                                          | value"; its routes answer 500                           |                         |                                            |
  | errors: translator   | RegularExpression that does not compile  | "RateLimit: regex ... is invalid: ..."; routes 500      | EG translator           | A policy Envoy Gateway cannot translate ...|

  The API server's refusals are seen only through an apply command (services.gateway.apply): its output must
  name the field; a gateway that reads a folder refuses the file and logs why. The translator's condition is the
  policy's status, which the suite cannot read; the 500 of the routes it targets is what it checks. Not walked
  here: units Week, Month and Year (windows too long to watch roll over), a header sent twice, sourceCIDR,
  methods, path and shared rules (the reference implements them; the spec shows none of them).

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

  @spec-8.1 @spec-8.4-x-ratelimit-limit @spec-8.4-x-ratelimit-remaining
  Scenario Outline: A limit of <limit> a Minute: <row>
    Given the policy "<policy>" applies to the route
    When 2 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 2 are answered <statuses> with x-ratelimit-remaining 0, 0
    And every answer has the header "x-ratelimit-limit" "<limit>, <limit>;w=60"
    And the upstream received <passed> requests for the route

    Examples:
      | limit | policy               | statuses | passed | row                                                  |
      | 1     | one-per-minute.yaml  | 200, 429 | 1      | the first request passes with none left, the next 429 |
      | 0     | zero-per-minute.yaml | 429, 429 | 0      | every request it counts gets 429                     |

  @spec-3.2-window-elapses @spec-8.4-x-ratelimit-reset @spec-2.7-rules.limit.unit
  Scenario: x-ratelimit-reset is the number of seconds until the Minute window ends
    Given the policy "three-per-minute.yaml" applies to the route
    When 1 request with "x-user-id: {caller}" is sent to the route
    Then request 1 passes with x-ratelimit-remaining "2"
    And the x-ratelimit-reset of request 1 is the number of seconds left in its 60-second window

  @spec-8.2 @spec-5.6 @spec-2.7-rules.clientSelectors @spec-2.7-clientSelectors.headers @spec-2.7-headers.type @spec-2.7-headers.name
  Scenario Outline: Distinct gives <row> a counter of its own
    Given the policy "three-per-hour.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}-a" are sent to the route
    And 1 request with "x-user-id: <second>" is sent to the route
    Then request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And request 5 passes with x-ratelimit-remaining "2"

    Examples:
      | second     | row                               |
      | {caller}-b | another value                     |
      | {caller}-A | a value that differs in case only |

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

  @spec-2.7-rules.clientSelectors @spec-2.7-clientSelectors.headers @spec-2.7-headers.name @capability-gateway.exact-headers
  Scenario: The clientSelectors of a rule must all hold, and a header is named in any case
    Given the policy "gold-tier-two-selectors.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}-a" and "x-tier: gold" are sent to the route
    And 1 request with "x-user-id: {caller}-b" and "x-tier: gold" is sent to the route
    And 2 requests with "x-user-id: {caller}-c" and "x-tier: silver" are sent to the route
    And 2 requests with "x-tier: gold" are sent to the route
    And 2 requests with "x-user-id: {caller}-d" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "1"
    And request 2 passes with x-ratelimit-remaining "0"
    And request 3 is answered 429
    And request 4 passes with x-ratelimit-remaining "1"
    And requests 5 to 10 pass without rate-limit headers
    And the upstream received 9 requests for the route

  @spec-2.7-clientSelectors.headers @spec-2.7-headers.type @capability-gateway.exact-headers
  Scenario: Every x-user-id but the admin's is limited: an Exact selector with invert, as in Envoy Gateway's task
    Given the policy "every-user-but-admin.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}" are sent to the route
    And 4 requests with "x-user-id: {caller}-admin" are sent to the route
    Then request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And requests 5 to 8 pass without rate-limit headers
    And the upstream received 7 requests for the route

  @spec-8.5 @capability-gateway.distinct-absent
  Scenario: A request without the Distinct header is not counted by that rule
    Given the policy "three-per-hour.yaml" applies to the route
    When 5 requests without "x-user-id" are sent to the route
    Then every request passes without rate-limit headers
    And the upstream received 5 requests for the route

  @spec-8.1 @spec-8.2 @spec-8.4-x-ratelimit-remaining
  Scenario: Without clientSelectors one counter serves the whole route, whatever the headers
    Given the policy "five-per-hour-per-route.yaml" applies to the route
    When requests with "x-user-id: {caller}-a" and "x-user-id: {caller}-b" in turn are sent to the route until one is answered 429, 6 at most
    Then requests 1 and 2 pass
    And each request before the last passes with an x-ratelimit-remaining one less than the request before it
    And the last request is answered 429 with the header "x-ratelimit-limit" "5, 5;w=3600"
    And the upstream received every request that passed

  @spec-2.7-spec.rateLimit.global.rules @spec-8.1 @spec-8.4-x-ratelimit-limit
  Scenario: Every rule of a policy counts the requests it matches, and a request over any one limit gets 429
    Given the policy "per-user-and-per-org.yaml" applies to the route
    When 2 requests with "x-user-id: {caller}-a" and "x-org-id: {caller}-o" are sent to the route
    And 1 request with "x-user-id: {caller}-b" and "x-org-id: {caller}-o" is sent to the route
    And 1 request with "x-user-id: {caller}-b" and "x-org-id: {caller}-p" is sent to the route
    Then request 1 passes with x-ratelimit-remaining "1"
    And request 1 has the header "x-ratelimit-limit" "2, 3;w=3600, 2;w=3600"
    And request 2 passes with x-ratelimit-remaining "0"
    And request 3 is answered 429
    And request 4 passes with x-ratelimit-remaining "1"
    And the upstream received 3 requests for the route

  @spec-2.7-spec.targetRefs @spec-2.7-spec.targetRefs.group @spec-2.7-spec.targetRefs.kind @spec-2.7-spec.targetRefs.name @spec-2.7-metadata.name
  Scenario: A policy limits the route its targetRefs name and no other
    Given the route "{other_route}" for the host "{other_host}" leads to the upstream
    And the policy "three-per-hour-for-other-route.yaml" applies to the route "{other_route}"
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
    And the policy "three-per-hour-for-both-routes.yaml" applies to the route
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

  @spec-2.7-spec.targetRefs @serial
  Scenario: A route added after the policy that names it is limited once it is routed
    Given the policy "three-per-hour-for-both-routes.yaml" applies to the route, before the route "{other_route}" it also names exists
    When the route "{other_route}" for the host "{other_host}" is added on its own, its Backend already applied
    Then the policy takes effect on the route "{other_route}"
    When 4 requests with "x-user-id: {caller}" are sent to the route "{other_route}"
    Then request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And the upstream received 3 requests for the route "{other_route}"

  @spec-3.2 @spec-2.7-spec.targetRefs
  Scenario: A route removed and added again keeps its counter within the window
    Given the policy "two-per-hour.yaml" applies to the route
    When 1 request with "x-user-id: {caller}" is sent to the route
    And the route "{route}" is removed
    And the route "{route}" is added again
    And the policy takes effect on the route
    And 2 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "1"
    And request 2 passes with x-ratelimit-remaining "0"
    And request 3 is answered 429
    And the upstream received 2 requests for the route "{route}"

  @spec-3.2 @spec-3.2-remaining-n
  Scenario: A policy changed within a window keeps its counters: the new limit counts the requests already made
    Given the policy "three-per-hour.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    And the policy "three-per-hour.yaml" is changed to "five-per-hour.yaml"
    And 3 requests with "x-user-id: {caller}" are sent to the route
    Then request 3 passes with x-ratelimit-remaining "0"
    And request 4 passes with x-ratelimit-remaining "1"
    And request 5 passes with x-ratelimit-remaining "0"
    And request 6 is answered 429
    And every answer from request 4 on has the header "x-ratelimit-limit" "5, 5;w=3600"

  @spec-2.7-rules.limit.requests
  Scenario Outline: A policy the API server refuses (<flaw>) limits nothing, and the policies after it still apply
    Given the route "{other_route}" for the host "{other_host}" leads to the upstream
    When the invalid policy "<policy>" is offered for the route, refused at "<field>"
    And the policy "three-per-hour-for-other-route.yaml" applies to the route "{other_route}"
    And 4 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 4 pass without rate-limit headers
    And the upstream received 4 requests for the route

    Examples: limits and selectors
      | flaw                                   | policy                | field                                             |
      | a rule without limit.requests          | without-requests.yaml | spec.rateLimit.global.rules[1].limit.requests     |
      | an unknown unit                        | unknown-unit.yaml     | spec.rateLimit.global.rules[0].limit.unit         |
      | a clientSelector without any condition | empty-selector.yaml   | spec.rateLimit.global.rules[0].clientSelectors[0] |

    @capability-gateway.cost
    Examples: costs
      | flaw                                 | policy                 | field                                              |
      | a negative cost                      | cost-negative.yaml     | spec.rateLimit.global.rules[0].cost.request.number |
      | a cost that is not a number          | cost-not-a-number.yaml | spec.rateLimit.global.rules[0].cost.request.number |
      | a cost that comes from a request header | cost-from-header.yaml | spec.rateLimit.global.rules[0].cost.request.from |

  @spec-2.7-headers.type
  Scenario Outline: A policy Envoy Gateway cannot translate (<flaw>) is not accepted, and the route it targets answers 500
    When the policy "<policy>", which Envoy Gateway cannot translate, is applied to the route
    Then the route answers 500 on every gateway instance
    When 2 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 2 are answered 500 without rate-limit headers
    And the upstream received 0 requests for the route

    Examples:
      | flaw                                             | policy                    |
      | a Distinct header with invert                    | distinct-with-invert.yaml |
      | a Distinct header with a value                   | distinct-with-value.yaml  |
      | an Exact header without a value                  | exact-without-value.yaml  |
      | a RegularExpression header that does not compile | invalid-regex.yaml        |

  @spec-8.4-x-ratelimit-limit @spec-8.4-x-ratelimit-remaining @capability-gateway.cost
  Scenario Outline: A request cost of <cost> against <limit> a Minute: <row>
    Given the policy "<policy>" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    Then requests 1 to 3 are answered <statuses> with x-ratelimit-remaining <remaining>
    And every answer has the header "x-ratelimit-limit" "<limit>, <limit>;w=60"
    And the upstream received <passed> requests for the route

    Examples:
      | cost | limit | policy                                 | statuses      | remaining | passed | row                                          |
      | 2    | 5     | five-per-minute-request-cost-two.yaml  | 200, 200, 429 | 3, 1, 0   | 2      | the third finds 1 left, less than it costs   |
      | 2    | 4     | four-per-minute-request-cost-two.yaml  | 200, 200, 429 | 2, 0, 0   | 2      | the second takes exactly what is left        |
      | 0    | 5     | five-per-minute-request-cost-zero.yaml | 200, 200, 200 | 5, 5, 5   | 3      | the counter is checked, never spent          |

  @spec-2.7-spec.rateLimit.global.rules @capability-gateway.cost
  Scenario: A response cost of 2 is counted once the response is complete, and limits the requests that follow
    Given the policy "five-per-hour-response-cost-two.yaml" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "4"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 is answered 429
    And the upstream received 2 requests for the route

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
  Scenario Outline: The <unit> unit: a <window>-second window, reset when it ends
    Given the policy "<policy>" applies to the route
    When 3 requests with "x-user-id: {caller}" are sent to the route
    Then request 1 passes with x-ratelimit-remaining "1"
    And request 2 passes with x-ratelimit-remaining "0"
    And request 3 is answered 429
    And every answer has the header "x-ratelimit-limit" "2, 2;w=<window>"
    And the x-ratelimit-reset of request 3 is the number of seconds left in its <window>-second window

    Examples:
      | unit | policy            | window |
      | Hour | two-per-hour.yaml | 3600   |
      | Day  | two-per-day.yaml  | 86400  |

  @spec-4.6 @capability-gateway.https
  Scenario Outline: <method> over HTTPS is limited the same way
    Given the policy "three-per-hour.yaml" applies to the route
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
    Given the policy "three-per-hour.yaml" applies to the route
    When 4 requests with "x-user-id: {caller}" are sent to the route, alternately through instances 1 and 2
    Then request 1 passes with x-ratelimit-remaining "2"
    And request 2 passes with x-ratelimit-remaining "1"
    And request 3 passes with x-ratelimit-remaining "0"
    And request 4 is answered 429
    And the upstream received 3 requests for the route

  @spec-6.3 @capability-gateway.access-log
  Scenario: The access log line of a request stopped by the limit
    Given the policy "three-per-hour.yaml" applies to the route
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
