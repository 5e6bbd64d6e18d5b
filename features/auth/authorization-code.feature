@profile-oauth @spec-1.1 @spec-3.1 @spec-5 @spec-5.1
Feature: Authorization code flow, sign-in and consent
  A browser user reaches the authorization endpoint for a client (response_type=code, client_id,
  redirect_uri, scope, state, nonce and a PKCE challenge). The authorization server asks the user to sign in
  with username and password, then asks consent to the requested scopes. Approving sends the browser back to
  the redirect URI with a code and the same state; the client exchanges the code at the token endpoint,
  authenticating with its id and secret as form fields. The token carries fortunes.read only when the user
  is a member of the group fortunes.read.

  The endpoints are the ones the server's discovery document names ({authorization_endpoint},
  {token_endpoint}, {issuer}); a UAA-shaped server without one has them at /oauth/authorize, /oauth/token,
  and its issuer is {auth_url}/oauth/token. Pages are found by their meaning: the sign-in form is the form
  with a password field; the consent page has an approve control (allow, authorize, continue...) and a deny
  control (deny, cancel...). The user approves or denies as a browser does: pressing the control sends the
  consent form with the scope boxes as the page ticks them. A server that shows a box per scope (UAA's
  scope.N checkboxes) grants only the scopes whose boxes are still ticked.

  Identities: {user} (password {password}, e-mail address {user_email}) holds fortunes.read, {outsider}
  (password {outsider_password}) does not; {client} is a confidential web client and {resource_client} a
  resource server's client. They are made fresh for every scenario through an administration API, or they are
  the target's fixtures. {nonce} is the nonce of the last authorization request, {access_token} and {user_id}
  come from the last token response. {refresh_scopes} are the scopes that bring a refresh token besides the
  ones a scenario names: offline_access where the server's discovery document lists it (OpenID Connect Core
  11), what the target names in refreshScopes, or none. {other_client} is a second web client, made fresh.

  A server may protect its users' accounts as UAA's lockoutPolicy does: after {lockout_failures} failed sign-ins
  in a row (the target's lockoutAfterFailures, UAA's 5 by default) the right password is refused too, for a
  while (UAA: 5 minutes), and the sign-in page says the same whichever password was typed; a name that is no
  user is answered as a user is, attempt by attempt, so that the answers do not tell who has an account. The
  page that refused the locked user's right password must still let another user in: a page that takes no right
  password after failed ones would refuse it for a reason of its own (such a scenario is blocked).

  Boundary table of the lockout (auth.account-lockout; UAA's lockoutPolicy, lockoutAfterFailures 5,
  countFailuresWithinSeconds 3600, lockoutPeriodSeconds 300 in uaa.yml's authentication.policy; UAA's
  PeriodLockoutPolicy counts the sequential failures within the window back to the last success, as its test
  loginIsAllowedIfSuccessfulLoginIntercedesExcessiveFailures shows):
    | failed sign-ins in a row before the right password   | answer                                         |
    | {lockout_failures}-1                                 | signed in                                      |
    | {lockout_failures}                                   | sign-in page again, as a wrong password's      |
    | {lockout_failures}+1                                 | sign-in page again (the attempt changes nothing) |
    | {lockout_failures}-1, a success, {lockout_failures}-1 | signed in: a success starts the count again   |
    | {lockout_failures}, the right password, the period    | signed in (auth.lockout-period): the refused  |
    |                                                       | attempt in between did not lengthen the lock  |
    | 1, the counting window, {lockout_failures}-1           | signed in (auth.lockout-window): the first    |
    |                                                       | failure no longer counts                      |
  The period rows are UAA's CommonLoginPolicy.isAllowed (server/.../authentication/manager): it counts the
  failures (UserAuthenticationFailure events) newer than countFailuresWithinSeconds back to the last success,
  and refuses while there are lockoutAfterFailures of them and the latest is newer than lockoutPeriodSeconds;
  a refused attempt of a locked user is an AuthenticationFailureLockedEvent (AuthzAuthenticationManager),
  which the count leaves out. They are walked when the target declares lockoutPeriodSeconds and
  countFailuresWithinSeconds of at most 10 seconds (the suite's run takes about 25 s); UAA's 300 s and 3600 s
  are not. A refusal counts only when the sign-in came within the period, and the period row's success only
  when the failures were still inside the window (countFailuresWithinSeconds longer than the period and the
  sign-ins; else the window could have let the user in): otherwise the scenario is blocked.
  auth.lockout-hides-users: a name that is no user gets, attempt by attempt up to {lockout_failures}+1, the
  answer a user's wrong password gets, lockout included.

  Boundary table of the code and the tokens (RFC 6749 sections 4.1.2, 4.1.3, 6 and 10.5; UAA's lifetimes:
  codes 300 s, access tokens 43200 s, refresh tokens 2592000 s, per client access_token_validity and
  refresh_token_validity):
    | what                                           | answer                                              |
    | a code, used once                              | 200 and tokens                                      |
    | the same code a second time                    | 400 invalid_grant, and (auth.replay-revokes) the    |
    |                                                | tokens issued from it are no longer active          |
    | a code with another PKCE verifier              | 400 invalid_grant                                   |
    | a code with a wrong client secret              | 401 invalid_client                                  |
    | a code past its lifetime                       | 400 invalid_grant, "Authorization code expired:     |
    |                                                | <code>" (auth.code-lifetime)                        |
    | a refresh token, used once                     | 200 and a new access token with the same scopes     |
    | a refresh token used a second time             | 400 invalid_grant (auth.refresh-rotation)           |
    | a refresh token after its access token expired | 200: the refresh token lives on (auth.token-lifetimes) |
  The access token's own expiry is in the token check's table. A code's lifetime is UAA's UaaTokenStore
  DEFAULT_EXPIRATION_TIME, 5 minutes, which uaa.yml does not set; consumeAuthorizationCode answers an expired
  code "Authorization code expired: <code>", or "Invalid authorization code: <code>" when its clean-up (at most
  every 5 minutes) deleted it first. It is walked when the target declares a codeLifetimeSeconds of at most 10.

  Boundary table of consent (auth.scope-choice, auth.remembered-consent; UAA's consent page and its
  approvals): every box ticked grants every scope asked; unticked boxes are not granted; deny sends
  access_denied with the same state; a remembered approval is one user's for one client, so a second client
  asks again. auth.redirect-uri-errors: a redirect URI not registered gets 400 and no redirect (UAA: "Invalid
  redirect ... did not match one of the registered values"). auth.userinfo-claims: userinfo names the user,
  the e-mail address and sub = user_id. auth.issuer-is-token-endpoint: the issuer is the token endpoint's
  address, in discovery and in every ID token.

  Steps that obtain what a scenario needs (a code, a token, a used refresh token) are preconditions: when one
  fails, the scenario is blocked, not failed, and a step that uses what they produced checks it is there.
  {short_client} is a web client whose access tokens live 2 seconds and its refresh tokens a minute.

  Background:
    Given a user "{user}" who holds fortunes.read
    And a web client "{client}" that may request "openid fortunes.read" with the grants "authorization_code refresh_token"

  @spec-3.1-unauthenticated @spec-3.1-signed-in-no-consent @spec-3.1-awaiting-consent @spec-3.1-code-issued @spec-4.1-get-oauth-authorize @spec-4.1-post-oauth-token @spec-5.2 @fresh-consent
  Scenario: Sign in, consent, code, token carrying fortunes.read
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    Then the authorization server shows a sign-in page
    When "{user}" signs in with the password "{password}"
    Then the authorization server asks to authorize the scopes "openid fortunes.read"
    When the user approves
    Then the browser is sent back to the redirect URI with a code and the same state
    When the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid fortunes.read"
    And the token response has an id token

  @spec-5.1
  Scenario: The ID token is signed by the server and names the issuer, the client and the nonce
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    Then the ID token is signed with a key of the server's JWKS
    And the ID token names the issuer, the client "{client}", the user and the nonce of the request

  @spec-3.1-unauthenticated @spec-2.1-user-password
  Scenario Outline: A sign-in with <case> shows the sign-in page again and issues no code
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "<user>" signs in with the password "<password>"
    Then the authorization server shows a sign-in page
    And the browser has not been sent back to the client

    Examples:
      | case                 | user          | password       |
      | a wrong password     | {user}        | not-{password} |
      | an unknown user name | nobody-{user} | {password}     |

  @spec-3.1-unauthenticated @spec-2.1-user-password @capability-auth.account-lockout @capability-auth.provisioning
  Scenario: After as many failed sign-ins in a row as lock an account, the right password is refused too, and the page does not tell
    Given a user "{outsider}" who does not hold fortunes.read
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" fails to sign in {lockout_failures} times with a wrong password
    And "{user}" signs in with the password "{password}"
    Then the last sign-in came within the lockout period
    And the failed sign-ins that locked "{user}" were all within the counting window then
    And the authorization server shows a sign-in page
    And the browser has not been sent back to the client
    When "{user}" signs in with the password "not-{password}"
    Then the authorization server shows a sign-in page
    And the last two sign-in pages say the same
    And on that page "{outsider}" still signs in with the password "{outsider_password}"

  @spec-3.1-signed-in-no-consent @capability-auth.account-lockout @capability-auth.provisioning @fresh-consent
  Scenario Outline: One failed sign-in fewer than lock an account still lets the right password in, <case>
    Given "{user}" has failed to sign in <earlier> times and then signed in to "{client}"
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" fails to sign in {lockout_failures}-1 times with a wrong password
    And "{user}" signs in with the password "{password}"
    Then the right password signs "{user}" in
    And the authorization server asks to authorize the scopes "openid fortunes.read"

    Examples:
      | case                                                  | earlier              |
      | after a sign-in without failures                      | 0                    |
      | after a sign-in that followed as many failures         | {lockout_failures}-1 |

  @spec-3.1-unauthenticated @spec-2.1-user-password @capability-auth.account-lockout @capability-auth.lockout-period @capability-auth.provisioning @fresh-consent @long
  Scenario: A locked account stays locked until the lockout period has passed since the latest failure, then the right password signs in
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" fails to sign in {lockout_failures} times with a wrong password
    And "{user}" signs in with the password "{password}"
    Then the last sign-in came within the lockout period
    And the authorization server shows a sign-in page
    And the browser has not been sent back to the client
    When the lockout period has passed since the last failed sign-in
    And "{user}" signs in with the password "{password}"
    Then the right password signs "{user}" in
    And the failed sign-ins that locked "{user}" were all within the counting window then
    And the authorization server asks to authorize the scopes "openid fortunes.read"

  @spec-3.1-signed-in-no-consent @capability-auth.account-lockout @capability-auth.lockout-window @capability-auth.provisioning @fresh-consent @long
  Scenario: A failed sign-in older than the counting window no longer counts toward the lockout
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" fails to sign in once with a wrong password
    And the counting window has passed since the last failed sign-in
    And "{user}" fails to sign in {lockout_failures}-1 times with a wrong password
    And "{user}" signs in with the password "{password}"
    Then the right password signs "{user}" in
    And the authorization server asks to authorize the scopes "openid fortunes.read"

  @capability-auth.lockout-hides-users @capability-auth.provisioning
  Scenario: An unknown user name is answered as a user's wrong password is, attempt by attempt, lockout included
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" and "nobody-{user}" each fail to sign in {lockout_failures} times and once more with a wrong password
    Then every attempt of "nobody-{user}" was answered as the same attempt of "{user}"

  @spec-3.1-awaiting-consent @capability-auth.scope-choice @fresh-consent
  Scenario: Scopes the user unticks on the consent page are not granted
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" signs in with the password "{password}"
    And the user unticks every scope but "openid" and approves
    Then the browser is sent back to the redirect URI with a code and the same state
    When the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid"
    And the token response does not carry the scope "fortunes.read"

  @spec-3.1-awaiting-consent @capability-auth.remembered-consent @fresh-consent
  Scenario: A second sign-in does not ask for consent again
    Given "{user}" has approved "{client}" on a consent page for the scope "openid fortunes.read"
    And the browser starts a new session
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" signs in with the password "{password}"
    Then the browser is sent back to the redirect URI with a code and the same state

  @spec-3.1-signed-in-no-consent @capability-auth.remembered-consent @fresh-consent
  Scenario: A consent remembered for one client is not a consent for another
    Given a web client "{other_client}" that may request "openid fortunes.read" with the grants "authorization_code refresh_token"
    And "{user}" has approved "{client}" on a consent page for the scope "openid fortunes.read"
    And the browser starts a new session
    When the browser asks for a code for "{other_client}" with the scope "openid fortunes.read"
    And "{user}" signs in with the password "{password}"
    Then the authorization server asks to authorize the scopes "openid fortunes.read"

  @spec-3.1-awaiting-consent @spec-7-auth-server-errors @fresh-consent
  Scenario: Denying consent sends the browser back with access_denied
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" signs in with the password "{password}"
    And the user denies
    Then the browser is sent back to the redirect URI with the error "access_denied" and the same state

  @spec-2.1 @spec-3.1-code-issued @fixture-outsider
  Scenario: A user outside the group fortunes.read gets a token without that scope
    Given a user "{outsider}" who does not hold fortunes.read
    And "{outsider}" obtains a code for "{client}" with the scope "openid fortunes.read"
    When the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    And the token response does not carry the scope "fortunes.read"

  @spec-5.2 @spec-4.1-post-oauth-token
  Scenario: The client may also authenticate with HTTP Basic at the token endpoint
    Given "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    When the client exchanges the code with HTTP Basic authentication
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid fortunes.read"

  @spec-2.1-client-secret @spec-7-auth-server-errors
  Scenario: Wrong client credentials at the token endpoint get invalid_client
    Given "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    When the client exchanges the code with the secret "wrong-secret" as form fields
    Then the answer is 401 with the error "invalid_client"

  @spec-2.1-client-redirect_uri @spec-7-auth-server-errors @capability-auth.redirect-uri-errors
  Scenario: A redirect URI that is not registered gets an error page and no redirect
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read" and the redirect URI "https://attacker.invalid/cb"
    Then the answer is 400
    And the answer redirects nowhere

  @spec-7-auth-server-errors
  Scenario: A code can be exchanged only once
    Given "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    When the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    When the client exchanges the code with its credentials as form fields
    Then the answer is 400 with the error "invalid_grant"

  @spec-7-auth-server-errors @capability-auth.code-lifetime @long
  Scenario: A code exchanged after its lifetime gets invalid_grant, as UAA says it
    Given "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    When the code's lifetime has passed
    And the client exchanges the code with its credentials as form fields
    Then the answer is 400 with the error "invalid_grant"
    And the error description is UAA's for an expired code

  @spec-7-auth-server-errors @capability-auth.replay-revokes @fixture-resource-client
  Scenario: Replaying a code revokes the tokens issued from it
    Given a resource client "{resource_client}" with the authorities "fortunes.read authz.resource"
    And "{user}" holds a token from "{client}" for "openid fortunes.read"
    And the authorization server reports the access token as active to "{resource_client}"
    When the client exchanges the code again
    Then the authorization server reports the access token as no longer active to "{resource_client}"

  @spec-7-auth-server-errors
  Scenario: A wrong PKCE verifier gets invalid_grant
    Given "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    When the client exchanges the code with its credentials as form fields and the verifier "not-the-verifier-of-this-code-0123456789abcdef"
    Then the answer is 400 with the error "invalid_grant"

  @spec-1.1 @spec-4.1-post-oauth-token
  Scenario: The code brings a refresh token, and the refresh token grant a new access token
    Given "{user}" obtains a code for "{client}" with the scope "openid fortunes.read {refresh_scopes}"
    When the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    And the token response has a refresh token
    When the client uses the refresh token
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid fortunes.read"

  @spec-4.1-post-oauth-token @capability-auth.token-lifetimes @fixture-short-lived-client @long
  Scenario: A refresh token still works after its access token has expired
    Given a web client "{short_client}" whose access tokens expire after 2 seconds and whose refresh tokens live 60 seconds
    And "{user}" holds a token and a refresh token from "{short_client}" for "openid fortunes.read"
    When the access token has expired
    And the client uses the refresh token
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid fortunes.read"

  @spec-4.1-post-oauth-token @capability-auth.refresh-rotation
  Scenario: A refresh token that was used already gets invalid_grant
    Given "{user}" holds a token and a refresh token from "{client}" for "openid fortunes.read"
    And the client has used the refresh token
    When the client uses the first refresh token again
    Then the answer is 400 with the error "invalid_grant"

  @spec-4.1-get-userinfo
  Scenario: User information for the holder of a token with openid
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the user information is requested with the access token
    Then the answer is 200 with a JSON body
    And the field "sub" is the subject of the ID token

  @spec-4.1-get-userinfo @capability-auth.userinfo-claims
  Scenario: User information names the user and the e-mail address, as UAA's does
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the user information is requested with the access token
    Then the answer is 200 with a JSON body
    And the answer names the user "{user}" with the e-mail address "{user_email}"
    And the field "sub" is "{user_id}"

  @spec-9.2 @capability-auth.issuer-is-token-endpoint
  Scenario: The issuer is the token endpoint's address
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    Then the issuer is the token endpoint's address
    And the ID token names the issuer, the client "{client}", the user and the nonce of the request

  @spec-7-auth-server-errors @capability-auth.revocation @fixture-resource-client
  Scenario: A revoked access token is no longer active
    Given a resource client "{resource_client}" with the authorities "fortunes.read authz.resource"
    And "{user}" holds a token from "{client}" for "openid fortunes.read"
    And the authorization server reports the access token as active to "{resource_client}"
    When the client revokes the access token
    Then the authorization server reports the access token as no longer active to "{resource_client}"
