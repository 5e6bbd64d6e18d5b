@profile-check-token @spec-2.2 @spec-4.1 @spec-4.1-post-check-token @spec-5.2 @fixture-resource-client
Feature: Token check
  A resource server validates an access token by POSTing it as the form field "token" to the authorization
  server's /check_token ({auth_url}/check_token), authenticated with HTTP Basic as a client that holds the
  authority authz.resource. The answer is the JSON object of spec 2.2. Every invalid token is answered 400
  with the error invalid_token and a description that says why, as UAA does.

  check_token is UAA's; standard servers offer token introspection (RFC 7662) instead. A target without it
  fails this profile with that one reason, and the other profiles still run.

  Boundary table of the token check (UAA's CheckTokenEndpoint; the anchor's words are UAA's):
    | token                                  | answer                                                           |
    | a valid access token                   | 200, the fields of spec 2.2                                      |
    | scopes all in the token                | 200                                                              |
    | scopes one of which is missing         | 400 invalid_scope "Some requested scopes are missing: <missing>" |
    | none                                   | 400 invalid_token "Token parameter must be set"                  |
    | unknown, tampered, or a refresh token  | 400 invalid_token "Token was not recognised"                     |
    | one second past its lifetime           | 400 invalid_token "Token has expired"                            |
    | revoked (auth.revocation)              | 400 invalid_token "The token has been revoked"                   |
    | no client credentials                  | 401                                                              |
    | a wrong client secret                  | 401                                                              |
    | a client without authz.resource        | 403                                                              |
  auth.revocation: RFC 7009 revocation at the revocation endpoint, after which the token check answers revoked.

  Identities: {user} (e-mail address {user_email}) holds fortunes.read, {client} is a web client,
  {resource_client} holds authz.resource, {short_client} is a web client whose access tokens live seconds.
  {issuer} is the discovered issuer, {nonce} the nonce of the last authorization request, {access_token},
  {refresh_token} and {user_id} come from the last token response (the user id from the administration API, the
  fixture, or the ID token).

  Background:
    Given a user "{user}" who holds fortunes.read
    And a web client "{client}" that may request "openid fortunes.read" with the grants "authorization_code refresh_token"
    And a resource client "{resource_client}" with the authorities "fortunes.read authz.resource"

  @spec-2.2-user_id @spec-2.2-user_name @spec-2.2-email @spec-2.2-client_id @spec-2.2-cid @spec-2.2-azp @spec-2.2-exp @spec-2.2-iat @spec-2.2-auth_time @spec-2.2-scope @spec-2.2-aud @spec-2.2-jti @spec-2.2-sub @spec-2.2-iss @spec-2.2-grant_type @spec-2.2-zid @spec-2.2-rev_sig @spec-2.2-nonce @spec-2.2-origin @spec-2.2-revocable
  Scenario: Every field of the token check, with its type and value
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When "{resource_client}" checks the access token
    Then the answer is 200 with a JSON body
    And the token check answer has:
      | field      | type    | value                                      |
      | user_id    | uuid    | {user_id}                                  |
      | user_name  | string  | {user}                                     |
      | email      | string  | {user_email}                               |
      | client_id  | string  | {client}                                   |
      | cid        | string  | {client}                                   |
      | azp        | string  | {client}                                   |
      | exp        | integer | later than now                             |
      | iat        | integer | now or earlier                             |
      | auth_time  | integer | now or earlier                             |
      | scope      | array   | openid fortunes.read                       |
      | aud        | array   | {client} openid fortunes                   |
      | jti        | string  | any                                        |
      | sub        | string  | {user_id}                                  |
      | iss        | string  | {issuer}                                   |
      | grant_type | string  | authorization_code                         |
      | zid        | string  | any                                        |
      | rev_sig    | string  | any                                        |
      | nonce      | string  | {nonce}                                    |
      | origin     | string  | any                                        |
      | revocable  | boolean | any                                        |

  @spec-4.1-post-check-token
  Scenario: The scopes parameter asks whether the token carries given scopes
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When "{resource_client}" checks the access token for the scopes "fortunes.read"
    Then the answer is 200 with a JSON body
    When "{resource_client}" checks the access token for the scopes "openid,fortunes.read"
    Then the answer is 200 with a JSON body
    When "{resource_client}" checks the access token for the scopes "fortunes.read,fortunes.write"
    Then the answer is 400 with the error "invalid_scope" and the description "Some requested scopes are missing: fortunes.write"

  @spec-7-auth-server-errors
  Scenario Outline: An invalid token is answered 400 invalid_token: <case>
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When "{resource_client}" checks the token "<token>"
    Then the answer is 400 with the error "invalid_token" and the description "<description>"

    Examples:
      | case              | token                      | description                 |
      | missing token     |                            | Token parameter must be set |
      | unknown token     | not-a-token-{user}         | Token was not recognised    |
      | tampered JWT      | {access_token}x            | Token was not recognised    |
      | a refresh token   | {refresh_token}            | Token was not recognised    |

  @spec-7-auth-server-errors @fixture-short-lived-client @long
  Scenario: An expired token is answered 400 invalid_token
    Given a web client "{short_client}" whose access tokens expire after 2 seconds
    And "{user}" holds a token from "{short_client}" for "openid fortunes.read"
    When the access token has expired
    And "{resource_client}" checks the access token
    Then the answer is 400 with the error "invalid_token" and the description "Token has expired"

  @spec-7-auth-server-errors @capability-auth.revocation
  Scenario: A revoked token is answered 400 invalid_token
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    And the authorization server reports the access token as active to "{resource_client}"
    When the client revokes the access token
    And "{resource_client}" checks the access token
    Then the answer is 400 with the error "invalid_token" and the description "The token has been revoked"

  @spec-5.2 @spec-7-auth-server-errors
  Scenario: The token check needs HTTP Basic credentials of a client with authz.resource
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the access token is checked without credentials
    Then the answer is 401
    When "{client}" checks the access token
    Then the answer is 403

  @spec-5.2 @spec-7-auth-server-errors
  Scenario: The token check refuses a resource client with a wrong secret
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When "{resource_client}" checks the access token with the secret "not-the-secret-of-{resource_client}"
    Then the answer is 401
