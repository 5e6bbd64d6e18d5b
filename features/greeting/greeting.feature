@spec-1.3 @spec-3.1 @spec-4.3 @spec-5.1 @service-authServer @service-fortune
Feature: Greeting client
  The greeting client is a web application. A browser without a session that opens its root is redirected
  to the authorization server's authorization endpoint, {authorization_endpoint} (response_type=code, the client's id, the client's root as
  redirect_uri, the scopes openid and fortunes.read, a state bound to the browser's session, and a PKCE
  challenge). After the user signs in and consents, the authorization server sends the browser back to the
  client's root with a code; the client exchanges it for tokens, calls the fortune service with the access
  token and renders the fortune. The page also answers Accept: application/json with {"fortune": ...}, so the
  harness reads it without scraping HTML.

  The greeting client is registered at the authorization server by whoever runs it. The harness brings a user
  who holds fortunes.read, {user} with the password {password}, and one who does not, {outsider} with the
  password {outsider_password}: fresh for every scenario where the target has an administration API, else its
  fixtures. {client} is the harness's own web client, with which it checks what the fortune service makes of
  a user's token.

  The way back (RFC 6749 4.1.2) is the client's root with code and state, or with error (4.1.2.1: access_denied,
  invalid_scope, server_error, ...) and state. The state binds it to the browser's sign-in under way (10.12):
  a way back that does not carry that state was not asked for by this browser, and is refused before anything
  else is looked at. To play the rows below, the harness approves at the authorization server but stops the
  browser on its way back, then sends it back as the row says: with the code and the state it was given, or
  with one of them changed, dropped, or replaced by an error.

    | way back                                             | answer                                            | checked with         |
    | none yet: the root without a session                 | redirect to the authorization endpoint (spec 3.1) | core                 |
    | the code and the state                               | signed in, the page shows a fortune               | core                 |
    | the code and another state                           | 400, and the real way back still signs in         | core                 |
    | the code and no state                                | 400, and the real way back still signs in         | core                 |
    | the error access_denied and another state            | 400, and the real way back still signs in         | core                 |
    | the code and the state, in a browser with no session | 400, and the real way back still signs in         | core                 |
    | the state and neither a code nor an error            | 400                                               | core                 |
    | the code and the state a second time, signed in      | 400: the state went with its sign-in, no new code exchange | core        |
    | access_denied, the user's own denial                 | a page that says access was denied, not a 5xx     | greeting.error-pages |
    | server_error, invalid_scope and the state            | a page that names the error, not a denial         | greeting.error-pages |
    | a user the fortune service refuses                   | a page without a fortune                          | core                 |

  Rows left out: sign-out is not in the spec (4.3 has GET / only); the error pages' structure is "not shown",
  so their words are checked only with the capability greeting.error-pages.

  Background:
    Given a user "{user}" who holds fortunes.read

  @spec-3.1-unauthenticated @spec-4.3-get-root @spec-7-greeting-unauthenticated
  Scenario: A browser without a session is redirected to the authorization server
    When a browser without a session opens the greeting client
    Then it is redirected to "{authorization_endpoint}" with a code request for the scopes "openid fortunes.read"
    And the request has a state, a nonce and an S256 code challenge
    And the request's redirect URI is the greeting client's root

  @spec-3.1-unauthenticated @spec-3.1-signed-in-no-consent @spec-3.1-awaiting-consent @spec-3.1-code-issued @spec-3.1-token-held @spec-4.3-get-root @fresh-consent
  Scenario: Sign in and consent at the authorization server, then the greeting client shows a fortune
    When a browser opens the greeting client
    Then the authorization server shows a sign-in page
    When "{user}" signs in with the password "{password}"
    Then the authorization server asks to authorize the scopes "fortunes.read"
    When the user approves
    Then the browser is back at the greeting client
    And the greeting page shows a fortune

  @spec-3.1-awaiting-consent @capability-greeting.error-pages @fresh-consent
  Scenario: A denied consent renders a page that says so
    When a browser opens the greeting client
    And "{user}" signs in with the password "{password}"
    And the user denies
    Then the browser is back at the greeting client
    And the greeting page says that access was denied, not that the server failed

  @spec-4.3-get-root @fixture-outsider
  Scenario: A fortune call the fortune service refuses is not shown as a fortune
    Given a user "{outsider}" who does not hold fortunes.read
    And a web client "{client}" that may request "openid fortunes.read" with the grants "authorization_code refresh_token"
    And the fortune service refuses the token "{outsider}" gets from "{client}" for "openid fortunes.read"
    When a browser opens the greeting client
    And "{outsider}" signs in with the password "{outsider_password}" and approves if asked
    Then the browser is back at the greeting client
    And the greeting page shows no fortune
    And in a browser of its own, the greeting client shows "{user}" (password "{password}") a fortune

  @spec-4.3-get-root @fresh-consent
  Scenario Outline: <who> coming back with <way back> is refused, and the user's own way back still signs in
    Given a browser opens the greeting client
    And "{user}" signs in with the password "{password}"
    And the user approves, and the browser stops on its way back to the greeting client
    When <who> comes back with <way back>
    Then the answer is 400
    When the browser comes back with the code and the state
    Then the greeting page shows a fortune

    Examples:
      | who                         | way back                                    |
      | the browser                 | the code and another state                  |
      | the browser                 | the code and no state                       |
      | the browser                 | the error "access_denied" and another state |
      | a browser without a session | the code and the state                      |

  @spec-4.3-get-root @fresh-consent
  Scenario: A way back with the state but neither a code nor an error is refused
    Given a browser opens the greeting client
    And "{user}" signs in with the password "{password}"
    And the user approves, and the browser stops on its way back to the greeting client
    When the browser comes back with the state and no code
    Then the answer is 400
    And in a browser of its own, the greeting client shows "{user}" (password "{password}") a fortune

  @spec-4.3-get-root @fresh-consent
  Scenario: The way back opened a second time is refused
    Given a browser opens the greeting client
    And "{user}" signs in with the password "{password}"
    And the user approves, and the browser stops on its way back to the greeting client
    And the browser comes back with the code and the state
    And the greeting page shows a fortune
    When the browser comes back with the code and the state
    Then the answer is 400

  @spec-4.3-get-root @capability-greeting.error-pages @fresh-consent
  Scenario Outline: The authorization server's error <error> on the way back is named, not shown as a denial
    Given a browser opens the greeting client
    And "{user}" signs in with the password "{password}"
    And the user approves, and the browser stops on its way back to the greeting client
    When the browser comes back with the error "<error>" and the state
    Then the greeting page shows no fortune but names the error "<error>", and does not say access was denied

    Examples:
      | error         |
      | server_error  |
      | invalid_scope |

  @spec-3.1-token-held @spec-4.3-get-root @browser @fresh-consent
  Scenario: The whole flow in a real browser
    When Chromium opens the greeting client
    And "{user}" signs in with the password "{password}" in Chromium
    And approves the scopes in Chromium
    Then Chromium shows the greeting page with a fortune
    And a screenshot of the page is saved as "greeting-fortune.png"
