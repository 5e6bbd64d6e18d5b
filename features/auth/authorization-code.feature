@spec-1.1 @spec-3.1 @spec-5 @spec-5.1
Feature: Authorization code flow, sign-in and consent
  A browser user reaches GET {auth_url}/oauth/authorize for a client (response_type=code, client_id,
  redirect_uri, scope, state, and a PKCE challenge). The authorization server asks the user to sign in with
  username and password, then asks consent to the requested scopes on a page whose form has a checkbox per
  scope and the buttons user_oauth_approval=true (Authorize) and user_oauth_approval=false (Deny). Approving
  sends the browser back to the redirect URI with a code and the same state; the client exchanges the code at
  POST {auth_url}/oauth/token, authenticating with its id and secret as form fields. The token carries
  fortunes.read only when the user is a member of the group fortunes.read.

  The steps find forms by their meaning (the form with a password field, the form with user_oauth_approval),
  not by the markup of any implementation. {user} and {client} are this scenario's own.

  Background:
    Given an admin token from the client credentials grant
    And the user "{user}" exists in the group "fortunes.read"
    And the client "{client}" may request "openid fortunes.read" with the grants "authorization_code refresh_token"

  @spec-3.1-unauthenticated @spec-3.1-signed-in-no-consent @spec-3.1-awaiting-consent @spec-3.1-code-issued @spec-4.1-get-oauth-authorize @spec-4.1-post-oauth-token @spec-5.2
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
    And the token response has a refresh token and an id token

  @spec-3.1-awaiting-consent @capability-auth.remembered-consent
  Scenario: A second sign-in does not ask for consent again
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    And the browser starts a new session
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" signs in with the password "{password}"
    Then the browser is sent back to the redirect URI with a code and the same state

  @spec-3.1-awaiting-consent @spec-7-auth-server-errors
  Scenario: Denying consent sends the browser back with access_denied
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read"
    And "{user}" signs in with the password "{password}"
    And the user denies
    Then the browser is sent back to the redirect URI with the error "access_denied" and the same state

  @spec-2.1 @spec-3.1-code-issued
  Scenario: A user outside the group fortunes.read gets a token without that scope
    Given the user "{user}-outsider" exists
    When "{user}-outsider" obtains a code for "{client}" with the scope "openid fortunes.read"
    And the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    And the token response does not carry the scope "fortunes.read"

  @spec-5.2 @spec-4.1-post-oauth-token
  Scenario: The client may also authenticate with HTTP Basic at the token endpoint
    When "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    And the client exchanges the code with HTTP Basic authentication
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid fortunes.read"

  @spec-7-auth-server-errors
  Scenario: Wrong client credentials at the token endpoint get invalid_client
    When "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    And the client exchanges the code with the secret "wrong-secret" as form fields
    Then the answer is 401 with the error "invalid_client"

  @spec-7-auth-server-errors @capability-auth.redirect-uri-errors
  Scenario: A redirect URI that is not registered gets an error page and no redirect
    When the browser asks for a code for "{client}" with the scope "openid fortunes.read" and the redirect URI "https://attacker.invalid/cb"
    Then the answer is 400
    And the answer redirects nowhere

  @spec-7-auth-server-errors
  Scenario: A code can be exchanged only once
    When "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    And the client exchanges the code with its credentials as form fields
    Then the answer is 200 with a JSON body
    When the client exchanges the code with its credentials as form fields
    Then the answer is 400 with the error "invalid_grant"

  @spec-7-auth-server-errors @capability-auth.replay-revokes
  Scenario: Replaying a code revokes the tokens issued from it
    Given a resource client "{client}-resource" with the authorities "fortunes.read authz.resource"
    When "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    And the client exchanges the code with its credentials as form fields
    And the client exchanges the code with its credentials as form fields
    And "{client}-resource" checks the access token
    Then the answer is 400 with the error "invalid_token"

  @spec-7-auth-server-errors
  Scenario: A wrong PKCE verifier gets invalid_grant
    When "{user}" obtains a code for "{client}" with the scope "openid fortunes.read"
    And the client exchanges the code with its credentials as form fields and the verifier "not-the-verifier-of-this-code-0123456789abcdef"
    Then the answer is 400 with the error "invalid_grant"

  @spec-4.1-post-oauth-token
  Scenario: The refresh token grant gives a new access token, once per refresh token
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the client uses the refresh token
    Then the answer is 200 with a JSON body
    And the token response carries an access token with the scope "openid fortunes.read"

  @spec-4.1-post-oauth-token @capability-auth.refresh-rotation
  Scenario: A refresh token that was used already gets invalid_grant
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the client uses the refresh token
    And the client uses the first refresh token again
    Then the answer is 400 with the error "invalid_grant"

  @spec-4.1-get-userinfo
  Scenario: User information for the holder of a token with openid
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the user information is requested with the access token
    Then the answer is 200 with a JSON body
    And the field "user_name" is "{user}"
    And the field "email" is "{user}@test.org"
    And the field "sub" is "{user_id}"
