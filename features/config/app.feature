@spec-1.6 @spec-2.6 @spec-4.5 @service-configApp @config-app
Feature: Configuration client application
  The configuration client application fetches its configuration from the configuration server when it starts,
  for its application name and the active profiles set in its environment at start. Its greeting page (GET /)
  shows msg, and a fortune only when greeting.displayFortune is true; its quote page (GET /random-quote) shows a
  quote fetched from quoteServiceURL, and that URL as uri. Both pages answer Accept: application/json with their
  attributes. POST /refresh makes one instance re-read its configuration without restart; POST /bus/refresh
  makes every instance bound to the message broker do so. By default every endpoint asks for HTTP Basic
  credentials: user "user" and a password the application writes to its log at start. security.basic.enabled
  false opens the application pages (/ and /random-quote) and nothing else; management.security.enabled false
  opens the operational endpoints (/refresh, /bus/refresh, /env, /loggers) and nothing else.

  POST /refresh answers 200 with the JSON array of the keys that changed; POST /bus/refresh answers 204.
  POST /bus/refresh?destination=<pattern> refreshes only the instances whose service id, Spring's
  "<name>:<port or profile>:<instance id>", matches the pattern: ":" separates its elements, "*" stands for any
  characters within an element, "**" for any number of elements, and a pattern without ":" means "<pattern>:**".
  GET /env lists the active profiles and the configuration's property sources, with "******" in place of the
  values of keys that end in password, secret, key or token or contain credentials, as Spring Boot 1.x shows them.
  Log levels decide what the application writes to its log. logging.level.<package> sets the level of the
  loggers of that package and of the packages under it, unless a key names a more specific package; GET
  /loggers/<name> answers a logger's configuredLevel and effectiveLevel, as Spring Boot 1.5 does.

  Each scenario starts its own instances under an application name of its own, written {app}, so that no
  scenario sees another's configuration. {quotes} is the address of a quote source the harness runs for the
  application. Requests to an instance carry the credentials it expects (user "user" and the password it wrote
  to its log at start, unless its configuration names others) except where a step says "without credentials"
  or names another password.

  The scenarios name the operational endpoints by the spec's paths, Spring Boot 1.x's (/refresh, /bus/refresh,
  /env, /loggers); the harness sends each request where the target says the application answers it
  (services.configApp.paths: /actuator/refresh, /actuator/busrefresh/{destination}, ... for Spring Boot 2 and 3),
  and reads /env in either shape.

  The feature is tagged @config-app: tck run --tags @config-app runs the client application's scenarios alone,
  without the configuration server's (tagged @config-server).

  A POST /bus/refresh that is answered refreshes every instance on the bus, other scenarios' instances
  included: the scenarios that send one are tagged @serial, and run while no other scenario of this feature
  runs.

  The bus is Spring Cloud Bus on RabbitMQ when the target names its broker (capability config.bus-spring-wire):
  the topic exchange springCloudBus, where each instance binds a queue of its own with "#" and publishes JSON
  events (content type application/json, persistent, routed with the exchange's name), as Spring Cloud Stream's
  Rabbit binder does. A refresh is {"type":"RefreshRemoteApplicationEvent","timestamp":<epoch ms>,
  "originService":<the sender's service id>,"destinationService":<pattern>,"id":<UUID>}, the destination sent
  with ":**" appended when it has at most two elements; each instance the event addresses applies it (unless it
  sent it) and answers with an AckRemoteApplicationEvent whose ackId is the event's id, ackDestinationService its
  destination and event "org.springframework.cloud.bus.event.RefreshRemoteApplicationEvent" (spring-cloud-bus:
  BusConsumer, PathDestinationFactory, AckRemoteApplicationEvent). Those scenarios bind a queue of their own to
  the exchange, which goes when they end.

  @spec-4.5-get-root @spec-2.6-greeting.displayFortune
  Scenario: Without greeting.displayFortune the greeting page shows msg and no fortune
    Given the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: http://quotes.test/unused
      """
    And an instance of "{app}" is started
    When I open the greeting page
    Then the page has the attribute "msg"
    And the page has no attribute "fortune"

  @spec-4.5-get-root @spec-2.6-greeting.displayFortune
  Scenario: With greeting.displayFortune true the greeting page shows msg and a fortune
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      """
    And an instance of "{app}" is started
    When I open the greeting page
    Then the page has the attribute "msg"
    And the page has the attribute "fortune"

  @spec-4.5-get-random-quote @spec-2.6-quoteServiceURL
  Scenario: The quote page shows a quote from quoteServiceURL, and the URL
    Given the quote source serves "/{app}/one" with the quote "Quote one for {app}"
    And the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: {quotes}/{app}/one
      """
    And an instance of "{app}" is started
    When I open the quote page
    Then the page attribute "quote" is "Quote one for {app}"
    And the page attribute "uri" is "{quotes}/{app}/one"

  @spec-3.3 @spec-3.3.1 @spec-3.3.2 @spec-4.5-post-refresh @spec-2.6-greeting.displayFortune
  Scenario: A change is visible at the server at once, at the application only after POST /refresh
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: false
      """
    And an instance of "{app}" is started
    When the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      """
    And I fetch the configuration of "{app}" with profile "default"
    Then the property source "{app}.yml" holds:
      | key                     | value |
      | greeting.displayFortune | true  |
    When I open the greeting page
    Then the page has no attribute "fortune"
    When I send "POST /refresh" to the application
    Then the answer is 200
    And the answer lists the changed key "greeting.displayFortune"
    When I open the greeting page
    Then the page has the attribute "fortune"

  @spec-3.3.2 @spec-4.5-post-refresh @spec-2.6-quoteServiceURL
  Scenario: After POST /refresh the quote page uses the new quoteServiceURL
    Given the quote source serves "/{app}/one" with the quote "Quote one for {app}"
    And the quote source serves "/{app}/two" with the quote "Quote two for {app}"
    And the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: {quotes}/{app}/one
      """
    And an instance of "{app}" is started
    When the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: {quotes}/{app}/two
      """
    And I open the quote page
    Then the page attribute "uri" is "{quotes}/{app}/one"
    When I send "POST /refresh" to the application
    Then the answer is 200
    And the answer lists the changed key "quoteServiceURL"
    When I open the quote page
    Then the page attribute "quote" is "Quote two for {app}"
    And the page attribute "uri" is "{quotes}/{app}/two"

  @spec-3.3.2 @spec-4.5-post-refresh @spec-2.6-logging.level
  Scenario: After POST /refresh a new log level applies
    Given the repository holds on "master" the file "{app}.yml":
      """
      logging:
        level:
          com.example.tck: WARN
      """
    And an instance of "{app}" is started
    When I send "GET /loggers/com.example.tck" to the application
    Then the field "configuredLevel" is "WARN"
    When the repository holds on "master" the file "{app}.yml":
      """
      logging:
        level:
          com.example.tck: DEBUG
      """
    And I send "POST /refresh" to the application
    Then the answer is 200
    And the answer lists the changed key "logging.level.com.example.tck"
    When I send "GET /loggers/com.example.tck" to the application
    Then the field "configuredLevel" is "DEBUG"
    And the field "effectiveLevel" is "DEBUG"

  @spec-2.6-logging.level
  Scenario: A package's log level applies to the loggers under it, unless a key names a more specific package
    Given the repository holds on "master" the file "{app}.yml":
      """
      logging:
        level:
          com.example.tck: DEBUG
          com.example.tck.noisy: WARN
      """
    And an instance of "{app}" is started
    When I send "GET /loggers/com.example.tck.web.GreetingController" to the application
    Then the answer is 200
    And the field "effectiveLevel" is "DEBUG"
    When I send "GET /loggers/com.example.tck.noisy.client.QuoteClient" to the application
    Then the answer is 200
    And the field "effectiveLevel" is "WARN"
    When I send "GET /loggers/com.example.tckextra.Helper" to the application
    Then the answer is 200
    And the field "effectiveLevel" is "INFO"

  @spec-3.3.2 @spec-4.5-post-bus-refresh @spec-6.2 @serial
  Scenario: POST /bus/refresh on one instance refreshes every instance
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: false
      """
    And 2 instances of "{app}" are started
    When the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      """
    And I send "POST /bus/refresh" to instance 1
    Then the answer is 204
    And within 15 seconds the greeting page of every instance has the attribute "fortune"

  @spec-3.3.2 @spec-4.5-post-refresh @spec-2.6-logging.level
  Scenario: After POST /refresh the log output follows the new level
    Given the repository holds on "master" the file "{app}.yml":
      """
      logging:
        level:
          root: INFO
      """
    And an instance of "{app}" is started
    When I open the greeting page
    Then the application logged no DEBUG line while answering
    When the repository holds on "master" the file "{app}.yml":
      """
      logging:
        level:
          root: DEBUG
      """
    And I send "POST /refresh" to the application
    Then the answer is 200
    And the answer lists the changed key "logging.level.root"
    When I open the greeting page
    Then the application logged a DEBUG line while answering

  @spec-3.3.2 @spec-4.5-post-bus-refresh @capability-config.bus-destination @serial
  Scenario: POST /bus/refresh?destination= refreshes only the instances whose service id the pattern matches
    Given the repository holds on "master" the file "{app}-alpha.yml":
      """
      greeting:
        displayFortune: false
      """
    And the repository holds on "master" the file "{app}-beta.yml":
      """
      greeting:
        displayFortune: false
      """
    And an instance of "{app}-alpha" is started
    And an instance of "{app}-beta" is started
    And an instance of "{app}-beta" is started
    When the repository holds on "master" the file "{app}-alpha.yml":
      """
      greeting:
        displayFortune: true
      """
    And the repository holds on "master" the file "{app}-beta.yml":
      """
      greeting:
        displayFortune: true
      """
    And I send "POST /bus/refresh?destination={app}-al*" to instance 2
    Then the answer is 204
    And within 15 seconds the greeting page of instance 1 has the attribute "fortune"
    And for 1 second the greeting page of instance 2 has no attribute "fortune"
    And for 1 second the greeting page of instance 3 has no attribute "fortune"

  @spec-3.3.3 @spec-4.5-get-env
  Scenario: The profile set at start is listed by /env and selects the profile file
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: false
      """
    And the repository holds on "master" the file "{app}-dev.yml":
      """
      greeting:
        displayFortune: true
      """
    And an instance of "{app}" is started with the profile "dev"
    When I send "GET /env" to the application
    Then the answer is 200
    And the environment lists the active profiles ["dev"]
    When I open the greeting page
    Then the page has the attribute "fortune"

  @spec-4.5-get-env @capability-config.env-masks-secrets
  Scenario: /env shows the configuration, with "******" for passwords, secrets, keys, tokens and credentials
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      db:
        password: pw-1
      oauth:
        client-secret: s-1
      signing:
        key: k-1
      api:
        token: t-1
      mail:
        credentials: c-1
      """
    And an instance of "{app}" is started
    When I send "GET /env" to the application
    Then the answer is 200
    And the environment has the properties:
      | property                | value  |
      | greeting.displayFortune | true   |
      | db.password             | ****** |
      | oauth.client-secret     | ****** |
      | signing.key             | ****** |
      | api.token               | ****** |
      | mail.credentials        | ****** |

  @spec-4.5-post-refresh
  Scenario: POST /refresh also lists the keys removed from the configuration
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      retired: soon
      """
    And an instance of "{app}" is started
    When the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      """
    And I send "POST /refresh" to the application
    Then the answer is 200
    And the answer lists the changed key "retired"

  @spec-3.3.3 @spec-4.5-post-refresh
  Scenario: A profile file added after start takes effect after POST /refresh
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: false
      """
    And an instance of "{app}" is started with the profile "cloud"
    When the repository holds on "master" the file "{app}-cloud.yml":
      """
      greeting:
        displayFortune: true
      """
    And I open the greeting page
    Then the page has no attribute "fortune"
    When I send "POST /refresh" to the application
    Then the answer is 200
    And the answer lists the changed key "greeting.displayFortune"
    When I open the greeting page
    Then the page has the attribute "fortune"

  @spec-5.4 @spec-7-config-client-no-credentials @serial
  Scenario Outline: By default <request> asks for HTTP Basic credentials, and user "user" with the password from the log opens it
    Given the quote source serves "/{app}/one" with the quote "Quote one for {app}"
    And the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: {quotes}/{app}/one
      """
    And an instance of "{app}" is started
    When I send "<request>" to the application without credentials
    Then the answer asks for HTTP Basic credentials
    When I send "<request>" to the application with the password "wrong-{app}"
    Then the answer asks for HTTP Basic credentials
    When I send "<request>" to the application
    Then the answer is <status>

    Examples:
      | request           | status |
      | GET /             | 200    |
      | GET /random-quote | 200    |
      | GET /env          | 200    |
      | POST /refresh     | 200    |
      | POST /bus/refresh | 204    |

  @spec-5.4
  Scenario: security.user.name and security.user.password set the credentials
    Given the repository holds on "master" the file "{app}.yml":
      """
      security:
        user:
          name: tck-{app}
          password: secret-{app}
      """
    And an instance of "{app}" is started, its configuration naming the user "tck-{app}" with the password "secret-{app}"
    When I send "GET /" to the application
    Then the answer is 200
    When I send "GET /" to the application with the password "wrong-{app}"
    Then the answer asks for HTTP Basic credentials

  @spec-5.4 @spec-2.6-security.basic.enabled @serial
  Scenario: security.basic.enabled false opens the application pages, not the operational endpoints
    Given the quote source serves "/{app}/one" with the quote "Quote one for {app}"
    And the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: {quotes}/{app}/one
      security:
        basic:
          enabled: false
      """
    And an instance of "{app}" is started
    When I send "GET /" to the application without credentials
    Then the answer is 200
    When I send "GET /random-quote" to the application without credentials
    Then the answer is 200
    When I send "GET /env" to the application without credentials
    Then the answer asks for HTTP Basic credentials
    When I send "POST /refresh" to the application without credentials
    Then the answer asks for HTTP Basic credentials
    When I send "POST /bus/refresh" to the application without credentials
    Then the answer asks for HTTP Basic credentials

  @spec-5.4 @spec-2.6-management.security.enabled @serial
  Scenario: management.security.enabled false opens the operational endpoints, not the application pages
    Given the quote source serves "/{app}/one" with the quote "Quote one for {app}"
    And the repository holds on "master" the file "{app}.yml":
      """
      quoteServiceURL: {quotes}/{app}/one
      management:
        security:
          enabled: false
      """
    And an instance of "{app}" is started
    When I send "GET /env" to the application without credentials
    Then the answer is 200
    When I send "POST /refresh" to the application without credentials
    Then the answer is 200
    When I send "POST /bus/refresh" to the application without credentials
    Then the answer is 204
    When I send "GET /" to the application without credentials
    Then the answer asks for HTTP Basic credentials
    When I send "GET /random-quote" to the application without credentials
    Then the answer asks for HTTP Basic credentials

  @spec-4.5-post-bus-refresh @spec-6.2 @capability-config.bus-spring-wire
  Scenario: POST /bus/refresh publishes Spring Cloud Bus's refresh event, and each instance it addresses acknowledges it
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: false
      """
    And 2 instances of "{app}" are started
    And an instance of "{app}-other" is started
    And a queue of the scenario's own is bound to the bus
    When the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      """
    And I send "POST /bus/refresh?destination={app}" to instance 1
    Then the answer is 204
    And the bus carries a refresh event from instance 1 to "{app}:**"
    And instances 1 and 2 acknowledge that event on the bus, and no other instance does
    And within 15 seconds the greeting page of instance 2 has the attribute "fortune"

  @spec-3.3.2 @spec-6.2 @capability-config.bus-spring-wire
  Scenario: A refresh event a Spring application publishes on the bus refreshes the instances it addresses, and no others
    Given the repository holds on "master" the file "{app}-alpha.yml":
      """
      greeting:
        displayFortune: false
      """
    And the repository holds on "master" the file "{app}-beta.yml":
      """
      greeting:
        displayFortune: false
      """
    And an instance of "{app}-alpha" is started
    And an instance of "{app}-beta" is started
    And a queue of the scenario's own is bound to the bus
    When the repository holds on "master" the file "{app}-alpha.yml":
      """
      greeting:
        displayFortune: true
      """
    And the repository holds on "master" the file "{app}-beta.yml":
      """
      greeting:
        displayFortune: true
      """
    And the suite publishes on the bus, as a Spring application does, a refresh event for "{app}-alpha"
    Then within 15 seconds the greeting page of instance 1 has the attribute "fortune"
    And instance 1 acknowledges that event on the bus, and no other instance does
    And for 1 second the greeting page of instance 2 has no attribute "fortune"
