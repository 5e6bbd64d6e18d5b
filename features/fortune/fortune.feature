@spec-1.2 @spec-4.2 @spec-5.3 @service-authServer
Feature: Fortune service
  The fortune service is a resource server: a GET to any of its paths answers the text of a fortune, and only
  to a caller that presents Authorization: Bearer <access token> for a token that carries the scope
  fortunes.read. It validates the token with the authorization server (POST /check_token with its own client
  credentials, the spec's way; or token introspection) or, as the spec allows, by checking the token's
  signature itself. Whatever the method, a token the authorization server did not issue, or no longer
  honours, is refused.

  The refusals' status and body are "not shown" in the spec; RFC 6750 gives them (401 with a Bearer challenge
  and error="invalid_token", 403 with error="insufficient_scope"), checked by scenarios that need the
  capability fortune.rfc6750-errors. A refusal of a call without the user's own token (none, a malformed,
  forged or tampered one) counts only when the service answers that user's token at the same path with a
  fortune: the harness asks it, and a service that refuses every call blocks those scenarios.

  Identities: {user} (password {password}) holds fortunes.read; {client} is a web client; {short_client} a
  web client whose access tokens live seconds. {access_token} is the access token the user holds.

  Background:
    Given a user "{user}" who holds fortunes.read
    And a web client "{client}" that may request "openid fortunes.read" with the grants "authorization_code refresh_token"

  @spec-4.2-get-any-path @spec-2.3 @spec-3.1-token-held
  Scenario Outline: A token with fortunes.read gets a fortune at <path>
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "<path>" with the access token
    Then the answer is a fortune

    Examples:
      | path                   |
      | /                      |
      | /deep/path/to/fortunes |

  @spec-7-fortune-refused
  Scenario Outline: The fortune service refuses <case>
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "/" with <token>
    Then the request is refused

    Examples:
      | case                                            | token                                           |
      | a request without a token                       | no token                                        |
      | a malformed token                               | the token "not.a-token"                         |
      | a token the authorization server does not know  | a token signed by a key of its own              |
      | a tampered token                                | the access token with its last character changed |

  @spec-7-fortune-refused
  Scenario: The fortune service refuses a token without fortunes.read
    Given "{user}" holds a token from "{client}" for "openid"
    When the fortune service is called at "/" with the access token
    Then the request is refused

  @spec-7-fortune-refused @capability-auth.revocation
  Scenario: The fortune service refuses a token revoked after it accepted it
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "/" with the access token
    Then the answer is a fortune
    When the client revokes the access token
    And the fortune service is called at "/" with the access token
    Then the request is refused

  @spec-7-fortune-refused @fixture-short-lived-client
  Scenario: The fortune service refuses an expired token
    Given a web client "{short_client}" whose access tokens expire after 2 seconds
    And "{user}" holds a token from "{short_client}" for "openid fortunes.read"
    When the access token has expired
    And the fortune service is called at "/" with the access token
    Then the request is refused

  @spec-7-fortune-refused @capability-fortune.rfc6750-errors
  Scenario: Refusals follow RFC 6750
    When the fortune service is called at "/" with no token
    Then the answer is 401 with a Bearer challenge
    When the fortune service is called at "/" with the token "not.a-token"
    Then the answer is 401 with a Bearer challenge with the error "invalid_token"
    Given "{user}" holds a token from "{client}" for "openid"
    When the fortune service is called at "/" with the access token
    Then the answer is 403 with a Bearer challenge with the error "insufficient_scope"
