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
  Scenario: A code that comes back with another state is refused
    When a browser opens the greeting client
    And "{user}" signs in with the password "{password}"
    And the user approves, and the state on the way back is changed
    Then the answer is 400

  @spec-3.1-token-held @spec-4.3-get-root @browser @fresh-consent
  Scenario: The whole flow in a real browser
    When Chromium opens the greeting client
    And "{user}" signs in with the password "{password}" in Chromium
    And approves the scopes in Chromium
    Then Chromium shows the greeting page with a fortune
    And a screenshot of the page is saved as "greeting-fortune.png"
