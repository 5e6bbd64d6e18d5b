@spec-1.5 @config-server
Feature: Configuration server
  The configuration server serves the configuration of a named application, for a profile and an optional
  label, from a git repository that holds one YAML file per application (<application>.yml) and one per
  application and profile (<application>-<profile>.yml). GET /{application}/{profile}[/{label}] answers a JSON
  document whose propertySources list one entry per matching file, highest precedence first, each named
  <repository uri>/<file> with its keys flattened (greeting.displayFortune, a.list[0]). The other top-level
  fields follow Spring Cloud Config: name, profiles, label (master when none is given), version (the commit
  served) and state.

  The spec leaves open how the server authenticates its clients; the client application it describes has no
  key for credentials to the server, so the server serves a client that sends none.

  The harness writes to the repository the target declares, as a person would with git. Every scenario has
  names of its own, written {app}, {branch} and {tag} below, so that scenarios never see each other's files. A
  value a scenario remembers under a name is written with that name in braces: {first} is the commit id
  remembered as "first". Master holds no file of the shared application (application.yml,
  application-<profile>.yml): such a file would apply to every scenario's application, so the repository must be
  the suite's own.

  The feature is tagged @config-server: tck run --tags @config-server runs the configuration server's scenarios
  alone, without the client application's (tagged @config-app).

  The boundaries. What clients of the server rely on, row by row, with where it is written down and the scenario
  that walks it. Sources: [spec x.y] the interface's section x.y (the scenarios' @spec-x.y tags); [anchor] the
  project's anchor notes (configuration-service.md), checked against spring-cloud-config's server:
  [controller] EnvironmentController (the paths below; "(_)" in a name or label is "/"; the flat documents
  merge the sources highest precedence last, write .properties as "key: value" lines and, like .yml and .yaml,
  answer them as text/plain, .json as application/json; a RepositoryException is 404, an
  IllegalArgumentException 400); [jgit] JGitEnvironmentRepository (a label is checked out by name, "works for
  tags and local branches", and one it cannot resolve is NoSuchLabelException "No such label: <label>") and
  JGit's CheckoutCommand, which resolves the name with Repository.resolve (a branch, a tag, a commit id or an
  abbreviated one); [docs] its documentation, "Environment Repository" (profile-specific files outrank the
  defaults; application.yml applies to every application).

  | area     | row                                            | what Spring does                                              | source            | scenario                                        |
  | paths    | /{app}/{profile}                               | 200, label master                                             | spec 4.4          | An application with a generic file only         |
  | paths    | /{app}/{profile}/{label}                       | 200 for that label                                            | spec 4.4          | A branch as label                               |
  | paths    | /{app}-{profile}.yml, .yaml, .properties, .json| one merged document                                           | controller        | The merged configuration as one <format> ...    |
  | paths    | /{label}/{app}-{profile}.<each format>         | the merged document of that label                             | controller        | A merged <format> document for a label          |
  | labels   | none; master                                   | master, the same answer                                       | spec 4.4          | Without a label the server answers for master...|
  | labels   | a branch                                       | its head; label echoed                                        | spec 4.4          | A branch as label                               |
  | labels   | a tag                                          | the tagged commit                                             | jgit              | A label names a commit as <form>                |
  | labels   | a commit id, full or abbreviated (7)           | that commit; version the full id, label as asked              | jgit              | A label names a commit as <form>                |
  | labels   | feature(_)x for feature/x                      | the branch feature/x                                          | controller        | A slash in a label is written (_)               |
  | labels   | a label no ref has                             | 404, message "No such label: <label>"                         | jgit; controller  | An unknown label is answered 404 ...            |
  | profiles | one profile                                    | its file, then the generic one                                | spec 2.5, 4.4     | A profile file is served in addition ...        |
  | profiles | default; a profile without a file              | the generic file alone                                        | spec 4.4          | A profile without a file of its own ...         |
  | profiles | west,east and east,west                        | the last one first: its file outranks the other's             | anchor            | Several comma-separated profiles ...            |
  | profiles | dev, then prod, then default on one commit     | each its own sources                                          | spec 4.4          | Each profile is answered with its own ...       |
  | shared   | application.yml, application-dev.yml           | {app}-dev, application-dev, {app}, application                | docs; anchor      | The shared application files apply ...          |
  | shared   | another application on the same label          | the shared files alone                                        | docs              | The shared application files apply ...          |
  | errors   | an application with no file                    | 200, no source of its own                                     | anchor            | An application the repository does not know ... |
  | errors   | a file that is not YAML                        | 500 naming the file                                           | anchor            | A file that is not valid YAML ...               |
  | errors   | a path that leaves the repository              | 400                                                           | anchor            | A path that tries to leave the repository ...   |
  | fresh    | a commit, a profile file added                 | served at the very next request                               | spec 3.3.1        | A change committed to the repository ...        |

  Spring answers .yml and .yaml as text/plain; the flat-format scenario asks for a text/ type only, as the
  reference answers text/yaml.

  @spec-2.4 @spec-2.5 @spec-2.5-app-yml @spec-4.4 @spec-4.4-get-app-profile
  Scenario: An application with a generic file only
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: Hello from the generic file
        displayFortune: false
      quoteServiceURL: http://quotes.test/api
      retries: 3
      """
    When I fetch the configuration of "{app}" with profile "default"
    Then the answer is 200 with a JSON body
    And the field "name" is "{app}"
    And the field "profiles" is ["default"]
    And the field "label" is "master"
    And the field "version" is the commit id of "master"
    And the field "state" is null or empty
    And the property sources are, highest precedence first:
      | {app}.yml |
    And the property source "{app}.yml" holds:
      | key                     | value                         |
      | greeting.message        | "Hello from the generic file" |
      | greeting.displayFortune | false                         |
      | quoteServiceURL         | "http://quotes.test/api"      |
      | retries                 | 3                             |

  @spec-5.5 @spec-4.4-get-app-profile
  Scenario: The server serves a client that sends no credentials
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: for anyone
      """
    When I fetch the configuration of "{app}" with profile "default" without credentials
    Then the answer is 200 with a JSON body
    And the property source "{app}.yml" holds:
      | key              | value        |
      | greeting.message | "for anyone" |

  @spec-2.5-app-profile-yml @spec-4.4-get-app-profile
  Scenario: A profile file is served in addition to the generic file, and before it
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: generic
      quoteServiceURL: http://quotes.test/generic
      """
    And the repository holds on "master" the file "{app}-dev.yml":
      """
      greeting:
        message: dev
        displayFortune: true
      """
    When I fetch the configuration of "{app}" with profile "dev"
    Then the answer is 200 with a JSON body
    And the field "profiles" is ["dev"]
    And the property sources are, highest precedence first:
      | {app}-dev.yml |
      | {app}.yml     |
    And the property source "{app}-dev.yml" holds:
      | key                     | value |
      | greeting.message        | "dev" |
      | greeting.displayFortune | true  |
    And the property source "{app}.yml" holds:
      | key              | value                        |
      | greeting.message | "generic"                    |
      | quoteServiceURL  | "http://quotes.test/generic" |

  @spec-4.4 @spec-4.4-get-app-profile
  Scenario: A profile without a file of its own, and the profile default, give the generic file alone
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: generic
      """
    And the repository holds on "master" the file "{app}-dev.yml":
      """
      greeting:
        message: dev
      """
    When I fetch the configuration of "{app}" with profile "prod"
    Then the answer is 200 with a JSON body
    And the property sources are, highest precedence first:
      | {app}.yml |
    When I fetch the configuration of "{app}" with profile "default"
    Then the property sources are, highest precedence first:
      | {app}.yml |

  @spec-4.4 @spec-4.4-get-app-profile @spec-2.5-app-profile-yml
  Scenario: Each profile is answered with its own profile file, and no other profile's
    # One commit, asked for three profiles in turn: an answer kept for one profile must not be served for another.
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: generic
      """
    And the repository holds on "master" the file "{app}-dev.yml":
      """
      greeting:
        message: dev
      """
    And the repository holds on "master" the file "{app}-prod.yml":
      """
      greeting:
        message: prod
      """
    When I fetch the configuration of "{app}" with profile "dev"
    Then the answer is 200 with a JSON body
    And the field "version" is the commit id of "master"
    And the field "profiles" is ["dev"]
    And the property sources are, highest precedence first:
      | {app}-dev.yml |
      | {app}.yml     |
    When I fetch the configuration of "{app}" with profile "prod"
    Then the answer is 200 with a JSON body
    And the field "version" is the commit id of "master"
    And the field "profiles" is ["prod"]
    And the property sources are, highest precedence first:
      | {app}-prod.yml |
      | {app}.yml      |
    And the property source "{app}-prod.yml" holds:
      | key              | value  |
      | greeting.message | "prod" |
    When I fetch the configuration of "{app}" with profile "default"
    Then the answer is 200 with a JSON body
    And the field "profiles" is ["default"]
    And the property sources are, highest precedence first:
      | {app}.yml |

  @spec-4.4-get-app-profile @capability-config.profile-lists
  Scenario: Several comma-separated profiles, the last one winning
    # Asked both ways: whatever order a server imposes of its own (by name, by length, by commit) is wrong for
    # one of them.
    Given the repository holds on "master" the file "{app}.yml":
      """
      source: generic
      """
    And the repository holds on "master" the file "{app}-west.yml":
      """
      source: from west
      """
    And the repository holds on "master" the file "{app}-east.yml":
      """
      source: from east
      """
    When I fetch the configuration of "{app}" with profile "west,east"
    Then the answer is 200 with a JSON body
    And the field "profiles" is ["west","east"]
    And the property sources are, highest precedence first:
      | {app}-east.yml |
      | {app}-west.yml |
      | {app}.yml      |
    And the property source "{app}-east.yml" holds:
      | key    | value       |
      | source | "from east" |
    When I fetch the configuration of "{app}" with profile "east,west"
    Then the answer is 200 with a JSON body
    And the field "profiles" is ["east","west"]
    And the property sources are, highest precedence first:
      | {app}-west.yml |
      | {app}-east.yml |
      | {app}.yml      |
    And the property source "{app}-west.yml" holds:
      | key    | value       |
      | source | "from west" |

  @spec-4.4-get-app-profile-label
  Scenario: Without a label the server answers for master, the same as with label master
    Given the repository holds on "master" the file "{app}.yml":
      """
      where: on master
      """
    And the repository holds on "{branch}" the file "{app}.yml":
      """
      where: on a branch
      """
    When I fetch the configuration of "{app}" with profile "default"
    Then the answer is 200 with a JSON body
    And the field "label" is "master"
    And the field "version" is the commit id of "master"
    And the property source "{app}.yml" holds:
      | key   | value       |
      | where | "on master" |
    When I fetch the configuration of "{app}" with profile "default" and label "master"
    Then the field "label" is "master"
    And the field "version" is the commit id of "master"

  @spec-4.4-get-app-profile-label
  Scenario: A branch as label
    Given the repository holds on "master" the file "{app}.yml":
      """
      where: on master
      """
    And the repository holds on "{branch}" the file "{app}.yml":
      """
      where: on a branch
      """
    When I fetch the configuration of "{app}" with profile "default" and label "{branch}"
    Then the answer is 200 with a JSON body
    And the field "label" is "{branch}"
    And the field "version" is the commit id of "{branch}"
    And the property source "{app}.yml" holds:
      | key   | value         |
      | where | "on a branch" |

  @spec-4.4-get-app-profile-label @capability-config.label-forms
  Scenario Outline: A label names a commit as <form>
    # Spring Cloud Config checks the label out with JGit (JGitEnvironmentRepository.checkout, "works for tags and
    # local branches"), whose CheckoutCommand resolves it with Repository.resolve: a tag, a commit id, or a
    # commit id abbreviated. The answer's label is the label as asked, its version the commit served.
    Given the repository holds on "{branch}" the file "{app}.yml":
      """
      release: one
      """
    And the commit id of "{branch}" is remembered as "first", and its first 7 characters as "first-short"
    And the head of "{branch}" is tagged "{tag}"
    And the repository holds on "{branch}" the file "{app}.yml":
      """
      release: two
      """
    When I fetch the configuration of "{app}" with profile "default" and label "<label>"
    Then the answer is 200 with a JSON body
    And the field "label" is "<label>"
    And the field "version" is "{first}"
    And the property source "{app}.yml" holds:
      | key     | value |
      | release | "one" |

    Examples:
      | form                                    | label         |
      | a tag                                   | {tag}         |
      | a commit id                             | {first}       |
      | a commit id abbreviated to 7 characters | {first-short} |

  @spec-4.4-get-app-profile-label @capability-config.label-forms
  Scenario: A slash in a label is written (_)
    Given the repository holds on "feature/{branch}" the file "{app}.yml":
      """
      where: on a feature branch
      """
    When I fetch the configuration of "{app}" with profile "default" and label "feature(_){branch}"
    Then the answer is 200 with a JSON body
    And the field "label" is "feature/{branch}"
    And the property source "{app}.yml" holds:
      | key   | value                 |
      | where | "on a feature branch" |

  @spec-3.3 @spec-3.3.1
  Scenario: A change committed to the repository is visible at the very next request
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: before
      """
    When I fetch the configuration of "{app}" with profile "default"
    Then the property source "{app}.yml" holds:
      | key              | value    |
      | greeting.message | "before" |
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: after
      """
    When I fetch the configuration of "{app}" with profile "default"
    Then the field "version" is the commit id of "master"
    And the property source "{app}.yml" holds:
      | key              | value   |
      | greeting.message | "after" |

  @spec-3.3.1
  Scenario: A profile file added to the repository is served at the very next request
    Given the repository holds on "master" the file "{app}.yml":
      """
      source: generic
      """
    When I fetch the configuration of "{app}" with profile "cloud"
    Then the property sources are, highest precedence first:
      | {app}.yml |
    Given the repository holds on "master" the file "{app}-cloud.yml":
      """
      source: cloud
      """
    When I fetch the configuration of "{app}" with profile "cloud"
    Then the property sources are, highest precedence first:
      | {app}-cloud.yml |
      | {app}.yml       |

  @spec-2.4 @capability-config.shared-files
  Scenario: The shared application files apply to every application; every profile file outranks every generic one
    # The shared files would touch every scenario's application, so they live on a branch of this scenario.
    Given the repository holds on "{branch}" the file "application.yml":
      """
      shared: everyone
      """
    And the repository holds on "{branch}" the file "application-dev.yml":
      """
      shared: everyone under dev
      """
    And the repository holds on "{branch}" the file "{app}.yml":
      """
      own: generic
      """
    And the repository holds on "{branch}" the file "{app}-dev.yml":
      """
      own: dev
      """
    When I fetch the configuration of "{app}" with profile "dev" and label "{branch}"
    Then the answer is 200 with a JSON body
    And the property sources are, highest precedence first:
      | {app}-dev.yml       |
      | application-dev.yml |
      | {app}.yml           |
      | application.yml     |
    When I fetch the configuration of "other-{app}" with profile "dev" and label "{branch}"
    Then the answer is 200 with a JSON body
    And the property sources are, highest precedence first:
      | application-dev.yml |
      | application.yml     |

  @spec-7-config-server-errors @capability-config.errors
  Scenario: An application the repository does not know gets an empty configuration, not an error
    When I fetch the configuration of "{app}" with profile "default"
    Then the answer is 200 with a JSON body
    And the field "name" is "{app}"
    And no property source comes from a file of "{app}"

  @spec-7-config-server-errors @capability-config.errors
  Scenario: An unknown label is answered 404 with a JSON error body
    When I fetch the configuration of "{app}" with profile "default" and label "no-such-{branch}"
    Then the answer is 404 with a JSON body
    And the error message names "no-such-{branch}" and "label"
    And the field "message" is "No such label: no-such-{branch}"
    And the field "status" is 404

  @spec-7-config-server-errors @capability-config.errors
  Scenario: A file that is not valid YAML is answered 500 with its name and line
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: fine
         broken: [indentation
      """
    When I fetch the configuration of "{app}" with profile "default"
    Then the answer is 500 with a JSON body
    And the error message names "{app}.yml" and "line 3"

  @spec-7-config-server-errors @capability-config.errors
  Scenario Outline: A path that tries to leave the repository is refused with 400: <path>
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: fine
      """
    When I request "<path>" from the configuration server
    Then the answer is 400 with a JSON body

    Examples:
      | path                                |
      | /{app}/default/..                   |
      | /{app}/default/..(_)..(_)etc        |
      | /{app}/default/(_)etc(_)passwd      |
      | /..(_){app}/default                 |
      | /{app}/..%2F..%2Fetc                |
      | /{app}/default/master%00            |
      | /{app}/default/..%5C..%5Cwindows    |

  @capability-config.flat-formats
  Scenario Outline: The merged configuration as one <format> document
    Given the repository holds on "master" the file "{app}.yml":
      """
      greeting:
        message: generic
      quoteServiceURL: http://quotes.test/generic
      tags: [a, b]
      """
    And the repository holds on "master" the file "{app}-dev.yml":
      """
      greeting:
        message: dev
      """
    When I request "/{app}-dev.<format>" from the configuration server
    Then the answer is 200
    And the answer has the header "Content-Type" starting with "<type>"
    And the answer is a <format> document holding:
      | key              | value                      |
      | greeting.message | dev                        |
      | quoteServiceURL  | http://quotes.test/generic |
      | tags[1]          | b                          |

    Examples:
      | format     | type             |
      | yml        | text/            |
      | yaml       | text/            |
      | properties | text/plain       |
      | json       | application/json |

  @capability-config.flat-formats
  Scenario Outline: A merged <format> document for a label
    # EnvironmentController: /{label}/{name}-{profiles}.<format>, the name split from the profiles at the last "-".
    Given the repository holds on "master" the file "{app}.yml":
      """
      where: on master
      """
    And the repository holds on "{branch}" the file "{app}.yml":
      """
      where: on a branch
      """
    And the repository holds on "{branch}" the file "{app}-dev.yml":
      """
      profile: dev on a branch
      """
    When I request "/{branch}/{app}-dev.<format>" from the configuration server
    Then the answer is a <format> document holding:
      | key     | value            |
      | where   | on a branch      |
      | profile | dev on a branch  |

    Examples:
      | format     |
      | yml        |
      | yaml       |
      | properties |
      | json       |
