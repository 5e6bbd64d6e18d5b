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

  A POST /bus/refresh without a destination, or with one that every instance matches (**), refreshes every
  instance on the bus, other scenarios' instances included: the scenarios that send one are tagged @serial, and
  run while no other scenario of this feature runs. A destination that names only the scenario's own
  applications ({app}-alpha, {app}-*) reaches only its instances, and such scenarios run side by side.
  {port-1}, {port-2}, ... are the ports the scenario's first, second, ... instance listens on: the element of
  its service id that follows the name (and the profiles).

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

  The boundaries. What users of the application rely on, row by row, with where it is written down and the
  scenario that walks it. Sources: [spec x.y] the interface's section x.y (the scenarios' @spec-x.y tags);
  [anchor] the project's anchor notes (configuration-service.md), checked against the Spring projects' own
  source: [commons] spring-cloud-commons 1.3 (Spring Boot 1.5's release train), ContextRefresher.refresh (the
  keys of the merged view before and after, compared with equals: added, removed and changed ones; the sources
  are merged highest precedence last, so a value a profile file hides is not a change) and LoggingRebinder (sets
  the logging.level keys present, upper-casing the level; a key removed is not reset); [client]
  spring-cloud-config-client ConfigServicePropertySourceLocator (its "configClient" source holds
  config.client.version, the commit served, so a refresh lists that key whenever the repository moved, for any
  application: the exact lists below leave it out); [bus] spring-cloud-bus: the destination is normalised by
  PathDestinationFactory (RemoteApplicationEvent's constructor in 1.x): none is "**", and one that is not "**",
  has at most one ":" and does not end in ":**" gets ":**" appended; ServiceMatcher.isForSelf and
  DefaultBusPathMatcher.matchMultiProfile (a service id listing several profiles matches a pattern that names
  any one of them); RefreshListener refreshes the sending instance only when the destination addresses it
  (since 2.2.2, spring-cloud-bus issue 68); its documentation, "Addressing an Instance" (/busrefresh/customers:9000
  addresses that one instance); [ids] spring-cloud-commons IdUtils (the service id is <name>:<port>:<random>,
  <name>:<profiles>:<port>:<random> with active profiles); [ant] spring-framework AntPathMatcher with ":" as
  separator (tokenizePath drops empty elements; "*" stays within an element, "**" spans elements; a pattern that
  starts with ":" matches only an id that does); [boot] spring-boot 1.5: Sanitizer (the keys password, secret,
  key, token and vcap_services are the patterns .*<key>$, plus .*credentials.*, all CASE_INSENSITIVE),
  LoggingApplicationListener.coerceLogLevel (false is OFF, other levels upper-cased), LogbackLoggingSystem
  (FATAL is Logback's ERROR), LoggersEndpoint; [mvc] Spring MVC, which answers a method an endpoint does not map
  405 with Allow (the refresh endpoints map POST only).

  | area        | row                                               | what Spring does                                         | source            | scenario                                       |
  | refresh     | a value changed                                   | 200, exactly ["level"]                                   | commons           | POST /refresh answers exactly the keys ...     |
  | refresh     | a key added / a key removed                       | exactly that key                                         | commons           | POST /refresh answers exactly the keys ...     |
  | refresh     | a value a profile file hides changed              | [] (the merged view did not change)                      | commons           | POST /refresh answers exactly the keys ...     |
  | refresh     | a value of the profile file changed               | exactly that key                                         | commons           | POST /refresh answers exactly the keys ...     |
  | refresh     | a second refresh with nothing new                 | [] (the change is not listed twice)                      | commons           | POST /refresh answers exactly the keys ...     |
  | refresh     | the repository moved for other applications      | config.client.version only (left out of the lists)       | client            | every exact list                               |
  | refresh     | the second instance of the application           | keeps its values: /refresh is one instance's             | spec 4.5, 3.3     | POST /refresh refreshes the instance it ...    |
  | refresh     | an instance started after the change              | starts with the new values; its /refresh lists nothing   | spec 3.3          | POST /refresh refreshes the instance it ...    |
  | refresh     | GET /refresh, GET /bus/refresh                    | 405, Allow: POST, nothing refreshed                      | mvc               | <request> is refused with 405 ...              |
  | refresh     | the configuration server cannot be reached        | the values in force stay; not walked: the suite does not stop the target's server | anchor | (none)                       |
  | bus         | no destination; **                                | every instance, the sender included; 204                 | spec 6.2; bus     | <request> on one instance refreshes every ...  |
  | bus         | {app}-alpha (no ":")                              | sent as {app}-alpha:**: every instance of {app}-alpha    | bus; anchor       | POST /bus/refresh?destination=<destination> ...|
  | bus         | {app}-alpha:** as given                           | every instance of {app}-alpha                            | bus               | POST /bus/refresh?destination=<destination> ...|
  | bus         | {app}-alpha:{port-1} (name and port)              | sent as {app}-alpha:{port-1}:**: that instance alone     | bus docs; ids     | POST /bus/refresh?destination=<destination> ...|
  | bus         | {app}-alpha:dev, {app}-alpha:cloud (a profile)    | the instance started with the profiles dev,cloud         | ids; bus matcher  | POST /bus/refresh?destination=<destination> ...|
  | bus         | {app}-* ("*" within an element)                   | every instance whose name starts so, the sender included | ant               | POST /bus/refresh?destination=<destination> ...|
  | bus         | {app}-alpha::** (an empty element)                | the same as {app}-alpha:** (empty elements are dropped)  | ant               | POST /bus/refresh?destination=<destination> ...|
  | bus         | the sender's own name                             | the sender alone                                         | bus               | POST /bus/refresh?destination=<destination> ...|
  | bus         | a name no instance has                            | no instance, not even the sender                         | bus (issue 68)    | POST /bus/refresh?destination=<destination> ...|
  | bus         | an empty destination (?destination=)              | sent as ":**", which addresses no instance; Boot 2's path form has no such destination: not walked | bus; ant | (none) |
  | bus         | the broker cannot be reached                      | the refresh fails and nothing is refreshed; not walked: the suite does not stop the target's broker | anchor | (none) |
  | bus wire    | {app}, {app}:{port-2} on the exchange             | destinationService {app}:**, {app}:{port-2}:**; acks from exactly the addressed | bus | POST /bus/refresh publishes Spring ...  |
  | env         | db.password, oauth.client-secret, signing.key, api.token | ******                                            | boot Sanitizer    | /env shows the configuration, with ...         |
  | env         | smtp.PASSWORD, oauth.clientSecret, signingKey, api.accessTOKEN | ****** (case is ignored)                    | boot Sanitizer    | /env shows the configuration, with ...         |
  | env         | mail.credentials, mail.smtp-credentials.user, cloud.vcap_services | ******                                   | boot Sanitizer    | /env shows the configuration, with ...         |
  | env         | keystore.type, passwordHint, tokenizer.mode, secretary.name | shown: the word is not at the end              | boot Sanitizer    | /env shows the configuration, with ...         |
  | env         | the active profiles                               | listed                                                   | spec 4.5          | The profile set at start is listed by /env ... |
  | loggers     | debug, Warn (any case)                            | DEBUG, WARN                                              | boot; commons     | A log level written <form> ...                 |
  | loggers     | false (what YAML 1.1 makes of an unquoted OFF)    | OFF                                                      | boot              | A log level written <form> ...                 |
  | loggers     | FATAL                                             | ERROR                                                    | boot Logback      | A log level written <form> ...                 |
  | loggers     | a word that is no level (LOUD)                    | logged and ignored: configuredLevel null, the inherited level | boot         | A log level written <form> ...                 |
  | loggers     | a logger under a configured package; a sibling with the same prefix | inherits the package's; the root's     | boot              | A package's log level applies ...              |
  | loggers     | a level changed by a refresh                      | applied to /loggers and to the log                       | spec 3.3          | After POST /refresh a new log level applies    |
  | loggers     | a logging.level key removed by a refresh          | Spring keeps the level it set until restart (LoggingRebinder), the spec says nothing: not walked | commons | (none) |

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
  Scenario Outline: <request> on one instance refreshes every instance (<destination>)
    # spring-cloud-bus: no destination is "**", and "**" is sent as it is (PathDestinationFactory).
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
    And I send "<request>" to instance 1
    Then the answer is 204
    And within 15 seconds the greeting page of every instance has the attribute "fortune"

    Examples:
      | request                           | destination       |
      | POST /bus/refresh                 | none              |
      | POST /bus/refresh?destination=**  | every instance    |

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

  @capability-config.bus-destination
  Scenario Outline: A bus refresh for <form> sent to instance 3 refreshes <refreshed>
    # spring-cloud-bus PathDestinationFactory, DefaultBusPathMatcher, RefreshListener (issue 68); spring-cloud-commons
    # IdUtils; spring-framework AntPathMatcher with ":" as separator. Instance 2's service id lists two profiles.
    # The last refresh reaches every instance: the ones the first refresh left alone were listening.
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
    And an instance of "{app}-alpha" is started with the profiles "dev,cloud"
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
    And I send "POST /bus/refresh?destination=<destination>" to instance 3
    Then the answer is 204
    And within 15 seconds the greeting page has the attribute "fortune" on <refreshed>, and for 1 second on no other instance
    When I send "POST /bus/refresh?destination={app}-*" to instance 3
    Then within 15 seconds the greeting page has the attribute "fortune" on instances 1, 2 and 3

    Examples:
      | form                                   | destination          | refreshed            |
      | a name                                 | {app}-alpha          | instances 1 and 2    |
      | a name and **                          | {app}-alpha:**       | instances 1 and 2    |
      | a name and a port                      | {app}-alpha:{port-1} | instance 1           |
      | a name and one of two profiles, dev    | {app}-alpha:dev      | instance 2           |
      | a name and the other profile, cloud    | {app}-alpha:cloud    | instance 2           |
      | a name with a star                     | {app}-al*            | instances 1 and 2    |
      | a prefix and a star                    | {app}-*              | instances 1, 2 and 3 |
      | a name, an empty element and **        | {app}-alpha::**      | instances 1 and 2    |
      | the sender's own name                  | {app}-beta           | instance 3           |
      | a name no instance has                 | {app}-gamma          | no instance          |

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
    # spring-boot 1.5 Sanitizer: .*password$, .*secret$, .*key$, .*token$, .*vcap_services$ and .*credentials.*,
    # case ignored; a key that holds one of the words elsewhere is shown.
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        displayFortune: true
      db:
        password: pw-1
      smtp:
        PASSWORD: pw-2
      oauth:
        client-secret: s-1
        clientSecret: s-2
      signing:
        key: k-1
      signingKey: k-2
      api:
        token: t-1
        accessTOKEN: t-2
      mail:
        credentials: c-1
        smtp-credentials:
          user: c-2
      cloud:
        vcap_services: v-1
      keystore:
        type: PKCS12
      passwordHint: the usual one
      tokenizer:
        mode: strict
      secretary:
        name: Miss Moneypenny
      """
    And an instance of "{app}" is started
    When I send "GET /env" to the application
    Then the answer is 200
    And the environment has the properties:
      | property                   | value           |
      | greeting.displayFortune    | true            |
      | db.password                | ******          |
      | smtp.PASSWORD              | ******          |
      | oauth.client-secret        | ******          |
      | oauth.clientSecret         | ******          |
      | signing.key                | ******          |
      | signingKey                 | ******          |
      | api.token                  | ******          |
      | api.accessTOKEN            | ******          |
      | mail.credentials           | ******          |
      | mail.smtp-credentials.user | ******          |
      | cloud.vcap_services        | ******          |
      | keystore.type              | PKCS12          |
      | passwordHint               | the usual one   |
      | tokenizer.mode             | strict          |
      | secretary.name             | Miss Moneypenny |

  @spec-4.5-post-refresh @spec-3.3.2
  Scenario Outline: POST /refresh answers exactly the keys that changed, and a second refresh none: <change>
    # spring-cloud-commons ContextRefresher: the keys of the merged view added, removed or changed; the view it
    # compares with is the one in force, so a change is listed once. Spring's config.client.version aside.
    Given the repository holds on "master" the file "{app}.yml":
      """
      kept: same
      level: one
      retired: soon
      hidden: generic-1
      """
    And the repository holds on "master" the file "{app}-dev.yml":
      """
      hidden: from-dev
      devLevel: one
      """
    And an instance of "{app}" is started with the profile "dev"
    When the repository holds on "master" the file "<file>":
      """
      <after>
      """
    And I send "POST /refresh" to the application
    Then the answer is 200
    And the changed keys are exactly <changed>
    When I send "POST /refresh" to the application
    Then the answer is 200
    And the changed keys are exactly []

    Examples:
      | change                                  | file          | after                                                                 | changed       |
      | a value changed                         | {app}.yml     | {kept: same, level: two, retired: soon, hidden: generic-1}            | ["level"]     |
      | a key added                             | {app}.yml     | {kept: same, level: one, retired: soon, hidden: generic-1, added: 1}  | ["added"]     |
      | a key removed                           | {app}.yml     | {kept: same, level: one, hidden: generic-1}                           | ["retired"]   |
      | a value the profile file hides changed  | {app}.yml     | {kept: same, level: one, retired: soon, hidden: generic-2}            | []            |
      | a value of the profile file changed     | {app}-dev.yml | {hidden: from-dev, devLevel: two}                                     | ["devLevel"]  |

  @spec-4.5 @spec-3.3.2
  Scenario: POST /refresh refreshes the instance it reaches and no other; an instance started after the change starts with it
    # Spec 4.5: behind a router a POST to /refresh reaches one instance; /bus/refresh is the one for all.
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
    And I send "POST /refresh" to instance 1
    Then the answer is 200
    And the changed keys are exactly ["greeting.displayFortune"]
    And within 15 seconds the greeting page of instance 1 has the attribute "fortune"
    And for 1 second the greeting page of instance 2 has no attribute "fortune"
    Given an instance of "{app}" is started
    Then the greeting page of instance 3 has the attribute "fortune"
    When I send "POST /refresh" to instance 3
    Then the answer is 200
    And the changed keys are exactly []

  Scenario Outline: <request> is refused with 405 and Allow: POST, and refreshes nothing
    # Spring MVC answers a method the endpoint does not map 405 with Allow; the refresh endpoints map POST only.
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
    And I send "<request>" to the application
    Then the answer is 405
    And the answer has the header "Allow" starting with "POST"
    And for 1 second the greeting page of instance 1 has no attribute "fortune"

    Examples:
      | request          |
      | GET /refresh     |
      | GET /bus/refresh |

  @spec-2.6-logging.level
  Scenario Outline: A log level written <form> sets <effective>
    # spring-boot LoggingApplicationListener.coerceLogLevel (false is OFF, other levels upper-cased; a word that is
    # no level is logged and ignored), LogbackLoggingSystem (FATAL is Logback's ERROR).
    Given the repository holds on "master" the file "{app}.yml":
      """
      logging:
        level:
          com.example.tck: <value>
      """
    And an instance of "{app}" is started
    When I send "GET /loggers/com.example.tck" to the application
    Then the answer is 200
    And the field "configuredLevel" is <configured>
    And the field "effectiveLevel" is "<effective>"

    Examples:
      | form                         | value | configured | effective |
      | in lower case                | debug | "DEBUG"    | DEBUG     |
      | in mixed case                | Warn  | "WARN"     | WARN      |
      | as false, YAML's OFF         | false | "OFF"      | OFF       |
      | as FATAL                     | FATAL | "ERROR"    | ERROR     |
      | as a word that is no level   | LOUD  | null       | INFO      |

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

  @spec-5.4 @spec-7-config-client-no-credentials
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

    Examples: requests that reach only the instance
      | request           | status |
      | GET /             | 200    |
      | GET /random-quote | 200    |
      | GET /env          | 200    |
      | POST /refresh     | 200    |

    @serial
    Examples: a request that refreshes every instance on the bus
      | request           | status |
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
  Scenario Outline: POST /bus/refresh?destination=<destination> publishes Spring Cloud Bus's refresh event to <sent>, and each instance it addresses acknowledges it
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
    And I send "POST /bus/refresh?destination=<destination>" to instance 1
    Then the answer is 204
    And the bus carries a refresh event from instance 1 to "<sent>"
    And <acknowledging> that event on the bus, and no other instance does
    And within 15 seconds the greeting page of instance 2 has the attribute "fortune"

    Examples:
      | destination    | sent              | acknowledging                  |
      | {app}          | {app}:**          | instances 1 and 2 acknowledge  |
      | {app}:{port-2} | {app}:{port-2}:** | instance 2 acknowledges        |

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
