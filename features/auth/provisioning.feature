@profile-provisioning @spec-2.1
Feature: Provisioning users, groups and clients
  An administrator creates the records of spec 2.1 through the UAA-compatible API, with a token the admin
  client gets from the client credentials grant: users (POST /Users), the group that is the scope
  fortunes.read (POST /Groups, GET /Groups?filter=...), memberships (POST /Groups/{id}/members) that grant a
  user the scope, and client registrations (POST /oauth/clients). This API is UAA's, and optional: a target
  declares it with services.authServer.provisioning, and the harness then also makes the identities of the
  other profiles through it, fresh for every scenario.

  A server may enforce a password policy, as UAA's passwordPolicy does: its defaults allow 1 to 255 characters,
  and a password that breaks the policy is refused with the error invalid_password.

  Every scenario uses names of its own: {user} (password {password}), {client}, {group}.

  Background:
    Given an admin token from the client credentials grant

  @spec-2.1-user-username @spec-2.1-user-given_name @spec-2.1-user-family_name @spec-2.1-user-email @spec-2.1-user-password
  Scenario: An administrator creates a user, and the answer does not show the password
    When the administrator creates the user "{user}" named "Ada" "Lovelace-{user}" with the e-mail address "ada.{user}@test.org" and the password "{password}"
    Then the answer is 201 with a JSON body
    And the field "userName" is "{user}"
    And the created user is named "Ada" "Lovelace-{user}" with the e-mail address "ada.{user}@test.org"
    And the answer has a user id
    And the answer has no field "password"

  @spec-2.1
  Scenario: A group is created, found by name, and gets a member
    When the administrator creates the group "{group}" described as "Read the fortunes of {group}"
    Then the answer is 201 with a JSON body
    When the administrator looks up the group "{group}"
    Then the answer is 200 with a JSON body
    And the lookup finds exactly one group named "{group}"
    Given the user "{user}" exists
    When the administrator adds "{user}" to the group "{group}"
    Then the answer is 201

  @spec-2.1-client-client-id-name @spec-2.1-client-secret @spec-2.1-client-scope @spec-2.1-client-authorities @spec-2.1-client-authorized_grant_types
  Scenario: An administrator registers a client, and reading it back does not show its secret
    When the administrator registers the client "{client}" with scope "openid fortunes.read", grants "authorization_code refresh_token" and authorities "fortunes.read authz.resource"
    Then the answer is 201
    When the administrator reads the client "{client}"
    Then the answer is 200 with a JSON body
    And the field "client_id" is "{client}"
    And the list field "scope" holds "openid fortunes.read"
    And the list field "authorized_grant_types" holds "authorization_code refresh_token"
    And the list field "authorities" holds "fortunes.read authz.resource"
    And the answer has no field "client_secret"

  @spec-7-auth-server-errors @capability-auth.provisioning-errors
  Scenario: The provisioning API refuses duplicates, callers without a token, and callers without the authority
    Given the user "{user}" exists
    When the administrator creates the user "{user}" with the password "{password}"
    Then the answer is 409
    When the administrator registers the client "{client}" with scope "openid", grants "authorization_code" and authorities ""
    And the administrator registers the client "{client}" with scope "openid", grants "authorization_code" and authorities ""
    Then the answer is 409
    When a user is created without a token
    Then the answer is 401
    Given a client "{client}-cc" that has only the client credentials grant and no authorities
    When "{client}-cc" creates a user with its own client credentials token
    Then the answer is 403
    Given a client "{client}-reader" that has only the client credentials grant and the authorities "clients.read scim.read"
    When "{client}-reader" registers a client with its own client credentials token
    Then the answer is 403
    When "{client}-reader" creates a user with its own client credentials token
    Then the answer is 403

  @capability-auth.password-policy
  Scenario Outline: A user with <password>, which breaks the password policy, is refused with invalid_password and not made
    When the administrator creates the user "{user}" with <password>
    Then the answer is 400 with a JSON body
    And the field "error" is "invalid_password"
    And the provisioning API has no user named "{user}"

    Examples:
      | password                     |
      | an empty password            |
      | a password of 256 characters |
