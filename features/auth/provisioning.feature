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

  Boundary table of the password policy (auth.password-policy; UAA's UaaPasswordPolicyValidator with the
  default passwordPolicy, minLength 0 taken as 1, maxLength 255; it answers 400 invalid_password and joins the
  message of every rule broken, as error_description and message):
    | password length      | answer                                                                     |
    | 0 (empty)            | 400 invalid_password, "Password must be at least 1 characters in length."  |
    | 1 (the minimum)      | 201, the user is made                                                      |
    | 72 (bcrypt's limit)  | 201, the user is made                                                      |
    | 73 to 255            | not walked: UAA accepts them (its bcrypt reads the first 72 bytes); a       |
    |                      | server may refuse what its hash would silently cut (the reference does)    |
    | 256 (one above 255)  | 400 invalid_password, "Password must be no more than 255 characters in    |
    |                      | length." (and the user is not made)                                        |

  Boundary table of the user filter (GET /Users?filter=..., UAA's SCIM filter, RFC 7644 section 3.4.2.2):
  attribute names and operators are read without regard to case, string values compare without regard to
  case (UAA's user store compares them so), and binds tighter than or, parentheses group. Walked: eq, co, sw,
  pr, gt, ge, lt, le (each at the value itself: gt and lt leave it out, ge and le take it in), and, or,
  parentheses, capitals in the attribute, the operator and the value. A filter that does not parse (an
  unknown operator) is answered as UAA's ScimUserEndpoints answers it: 400, the error "scim", and
  "Invalid filter expression: [<filter>]" with the filter HTML-escaped (Spring's HtmlUtils). The filters are
  walked in one scenario, on one set of users, as a table: one scenario per row would make three users (three
  password hashes) per row, seconds of the suite's time for nothing the table does not already show.

  Boundary table of the provisioning errors (auth.provisioning-errors, UAA's ScimUserEndpoints and
  ClientAdminEndpoints): a second user or client of the same name 409; no token 401; a token without
  scim.write 403; a token with clients.read but not clients.write registering a client 403.

  Every scenario uses names of its own: {user} (password {password}), {client}, {group}; the filter scenarios
  make users whose names start with "{user}-".

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
    And the error description says "<description>"
    And the provisioning API has no user named "{user}"

    Examples:
      | password                     | description                                             |
      | an empty password            | Password must be at least 1 characters in length.       |
      | a password of 256 characters | Password must be no more than 255 characters in length. |

  @capability-auth.password-policy
  Scenario Outline: A user with a password of <length> characters, within the password policy, is made
    When the administrator creates the user "{user}" with a password of <length> characters
    Then the answer is 201 with a JSON body
    And the field "userName" is "{user}"

    Examples:
      | length |
      | 1      |
      | 72     |

  @spec-2.1
  Scenario: The user filter finds the users it names, row by row of its boundary table
    Given the administrator has created the users:
      | user       | given name | family name | email                  |
      | {user}-Ada | Ada        | Lovelace    | ada.{user}@test.org    |
      | {user}-bob | Bob        | Babbage     | bob.{user}@example.org |
      | {user}-cy  |            | Cy          | cy.{user}@test.org     |
    Then each filter finds, among the users whose names start with "{user}-":
      | filter                                                                              | found                 |
      | userName eq "{user}-ada"                                                            | {user}-Ada            |
      | USERNAME EQ "{user}-bob"                                                            | {user}-bob            |
      | userName sw "{user}-c"                                                              | {user}-cy             |
      | userName sw "{user}-" and emails.value co "{user}@test"                             | {user}-Ada {user}-cy  |
      | userName sw "{user}-" and name.givenName pr                                         | {user}-Ada {user}-bob |
      | userName eq "{user}-ada" or userName eq "{user}-bob" and name.givenName eq "nobody" | {user}-Ada            |
      | (userName eq "{user}-ada" or userName eq "{user}-bob") and name.givenName Eq "BOB"  | {user}-bob            |
      | userName sw "{user}-" and userName gt "{user}-bob"                                  | {user}-cy             |
      | userName sw "{user}-" and userName ge "{user}-bob"                                  | {user}-bob {user}-cy  |
      | userName sw "{user}-" and userName lt "{user}-bob"                                  | {user}-Ada            |
      | userName sw "{user}-" and userName le "{user}-BOB"                                  | {user}-Ada {user}-bob |

  @spec-7-auth-server-errors
  Scenario: A user filter with an unknown operator is refused as UAA refuses it
    When the administrator lists the users with the filter 'userName xx "{user}"'
    Then the answer is 400 with the error "scim"
    And the error description says "Invalid filter expression: [userName xx &quot;{user}&quot;]"
