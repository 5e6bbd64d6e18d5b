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
  forged or tampered one, the user's token in a form the service must not read) counts only when the service
  answers that user's token at the same path with a fortune: the harness asks it, and a service that refuses
  every call blocks those scenarios.

  Identities: {user} (password {password}) holds fortunes.read; {client} is a web client; {short_client} a
  web client whose access tokens live seconds; {other_client} a second web client, made fresh with
  provisioning. {access_token} is the access token the user holds.

  What callers rely on, row by row (the boundary table the scenarios below walk). The header's grammar is
  RFC 6750 2.1, credentials = "Bearer" 1*SP b64token; an authentication scheme is case-insensitive (RFC 9110
  11.1); Spring Security OAuth's BearerTokenExtractor, the resource server spec 5.3 describes, compares the
  scheme ignoring case and trims the spaces before the token.

    | input                                              | answer                                   | checked with               |
    | Bearer {access_token}, at / and at a deep path     | a fortune (spec 4.2)                     | core                       |
    | bearer {access_token}, BEARER {access_token}       | a fortune: the scheme ignores case       | core                       |
    | Bearer, two spaces, {access_token}                 | a fortune: 1*SP (RFC 6750 2.1)           | fortune.header-forms       |
    | the token under another scheme (Token ...)         | refused                                  | core                       |
    | the token alone, no scheme                         | refused                                  | core                       |
    | Bearer and no token                                | refused                                  | core                       |
    | two Authorization headers, the good one first/last | 400 invalid_request (RFC 6750 3.1)       | fortune.header-forms       |
    | no Authorization header; Basic credentials         | 401, Bearer challenge without an error   | core; fortune.rfc6750-errors |
    | a malformed, foreign-signed or tampered token      | 401 invalid_token                        | core; fortune.rfc6750-errors |
    | a token without fortunes.read (openid only)        | 403 insufficient_scope                   | core; fortune.rfc6750-errors |
    | a token of another fortunes scope (fortunes.write) | refused: audience fortunes is not scope  | core, with provisioning    |
    | a token revoked after it was accepted              | refused                                  | auth.revocation            |
    | a 3-second token at once, then 1 s past expires_in | a fortune, then refused                  | short-lived-client fixture |

  Rows left out, and why: a token in the query (?access_token=, RFC 6750 2.3) is a method a resource server
  MAY support (Spring's extractor reads it, the reference does not), so neither answer is wrong; a form body
  (2.2) is not for GET. A token with fortunes.read but without the audience fortunes cannot be had from a
  UAA-shaped server, which derives aud from the scopes (anchor: authorization-server.md, check_token). The
  moment one second before expiry is not asked: a server counts a lifetime from an iat cut to the second, so
  a call timed there can cross it; the token is used at once instead, and lives 3 seconds so that "at once"
  (2 to 3 seconds left) holds on a loaded machine. What the authorization server answers
  the service (check_token's 400 invalid_token, an inactive introspection, a scope string or array) is the
  target's own server's choice, not the suite's.

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

  @spec-4.2-get-any-path
  Scenario Outline: The scheme of the Authorization header is read as <form>
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "/" with the Authorization header "<header>"
    Then the answer is a fortune

    Examples: the scheme in any case (RFC 9110 11.1)
      | form                   | header                  |
      | bearer in lower case   | bearer {access_token}   |
      | BEARER in upper case   | BEARER {access_token}   |

    @capability-fortune.header-forms
    Examples: more than one space before the token (RFC 6750 2.1, 1*SP)
      | form                   | header                  |
      | Bearer and two spaces  | Bearer  {access_token}  |

  @spec-7-fortune-refused
  Scenario Outline: The fortune service refuses <case>
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "/" with <token>
    Then the request is refused

    Examples:
      | case                                            | token                                              |
      | a request without a token                       | no token                                           |
      | a malformed token                               | the token "not.a-token"                            |
      | a token the authorization server does not know  | a token signed by a key of its own                 |
      | a tampered token                                | the access token with its last character changed   |
      | the token under another scheme                  | the Authorization header "Token {access_token}"    |
      | the token without a scheme                      | the Authorization header "{access_token}"          |
      | Bearer without a token                          | the Authorization header "Bearer"                  |

  @spec-7-fortune-refused
  Scenario: The fortune service refuses a token without fortunes.read
    Given "{user}" holds a token from "{client}" for "openid"
    When the fortune service is called at "/" with the access token
    Then the request is refused

  @spec-7-fortune-refused @capability-auth.provisioning
  Scenario: The fortune service refuses a token of another fortunes scope, though it is for the audience fortunes
    Given the administrator adds "{user}" to the group "fortunes.write"
    And a web client "{other_client}" that may request "openid fortunes.write" with the grants "authorization_code refresh_token"
    And "{user}" holds a token from "{other_client}" for "openid fortunes.write"
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

  @spec-7-fortune-refused @fixture-short-lived-client @long
  Scenario: The fortune service takes a short-lived token at once and refuses it once expired
    Given a web client "{short_client}" whose access tokens expire after 3 seconds
    And "{user}" holds a token from "{short_client}" for "openid fortunes.read"
    When the fortune service is called at "/" with the access token
    Then the answer is a fortune
    When the access token has expired
    And the fortune service is called at "/" with the access token
    Then the request is refused

  @spec-7-fortune-refused @capability-fortune.rfc6750-errors
  Scenario: Refusals follow RFC 6750
    When the fortune service is called at "/" with no token
    Then the answer is 401 with a Bearer challenge
    When the fortune service is called at "/" with the Authorization header "Basic dGNrOm5vdC1hLXRva2Vu"
    Then the answer is 401 with a Bearer challenge
    When the fortune service is called at "/" with the token "not.a-token"
    Then the answer is 401 with a Bearer challenge with the error "invalid_token"
    Given "{user}" holds a token from "{client}" for "openid"
    When the fortune service is called at "/" with the access token
    Then the answer is 403 with a Bearer challenge with the error "insufficient_scope"

  @spec-7-fortune-refused @capability-fortune.header-forms
  Scenario: Two Authorization headers are a malformed request, whichever comes first
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "/" with the Authorization headers "Bearer {access_token}" and "Bearer not.a-token"
    Then the answer is 400 with a Bearer challenge with the error "invalid_request"
    When the fortune service is called at "/" with the Authorization headers "Bearer not.a-token" and "Bearer {access_token}"
    Then the answer is 400 with a Bearer challenge with the error "invalid_request"
