package features

import (
	"slices"
	"strings"
)

// The registry: every name a feature file, a target file, the runner and the report share, as typed constants
// in one place, in the manner of Gateway API's conformance suite (pkg/features). A tag a feature file uses must
// name an entry here (registry_test.go checks both ways), and a target file is validated against it.

// Tag prefixes by which a scenario (or its feature) states where it belongs and what it needs of a target
// besides its area's primary service.
const (
	// ProfileTag puts a feature's scenarios into a profile (@profile-check-token).
	ProfileTag = "@profile-"
	// ServiceTag: a further service (@service-fortune).
	ServiceTag = "@service-"
	// CapabilityTag: an optional capability (@capability-config.errors).
	CapabilityTag = "@capability-"
	// FixtureTag: an identity beyond the user who holds fortunes.read and the web client (@fixture-outsider). An
	// administration API makes every identity, so with provisioning these are always there.
	FixtureTag = "@fixture-"
	// FreshConsentTag: the scenario must see a consent page, so its user must not have consented before: it
	// needs fresh users (provisioning), unless the server asks again in every new browser session (it does not
	// declare auth.remembered-consent).
	FreshConsentTag = "@fresh-consent"
	// SerialTag: the scenario cannot share the target with the other scenarios of its feature running at the
	// same time (a /bus/refresh reaches every instance on the bus, other scenarios' included): it runs while
	// none of them does.
	SerialTag = "@serial"
	// LongTag: the scenario waits out a period the target declares (a lockout window, a token's lifetime), which
	// it cannot shorten: the harness starts it among the first, so that its wait overlaps the other scenarios
	// instead of ending the run.
	LongTag = "@long"
)

// Service names a service a target may declare: its key under services: in a target file, and the name in a
// @service-<name> tag.
type Service string

// The services, in the order of Services.
const (
	AuthServer   Service = "authServer"
	Fortune      Service = "fortune"
	Greeting     Service = "greeting"
	Gateway      Service = "gateway"
	ConfigServer Service = "configServer"
	ConfigApp    Service = "configApp"
)

// Services lists every service a target may declare.
var Services = []Service{AuthServer, Fortune, Greeting, Gateway, ConfigServer, ConfigApp}

// Area is a folder of feature files: a part of the interface with profiles of its own.
type Area string

// The areas, in report order.
const (
	AreaAuth     Area = "auth"
	AreaFortune  Area = "fortune"
	AreaGreeting Area = "greeting"
	AreaGateway  Area = "gateway"
	AreaConfig   Area = "config"
)

// Areas lists the areas in the order reports show them; a feature's area is the folder it lives in.
var Areas = []Area{AreaAuth, AreaFortune, AreaGreeting, AreaGateway, AreaConfig}

// Primary is the service without which an area is not under test at all. Scenarios that need a further service
// of the area say so with @service-<name>.
func (a Area) Primary() Service {
	switch a {
	case AreaAuth:
		return AuthServer
	case AreaFortune:
		return Fortune
	case AreaGreeting:
		return Greeting
	case AreaGateway:
		return Gateway
	case AreaConfig:
		return ConfigServer
	}
	return ""
}

// ProfileName names a profile in the report and in a @profile-<name> tag.
type ProfileName string

// The profiles, in report order.
const (
	ProfileOAuth        ProfileName = "oauth"
	ProfileCheckToken   ProfileName = "check-token"
	ProfileProvisioning ProfileName = "provisioning"
	ProfileFortune      ProfileName = "fortune"
	ProfileGreeting     ProfileName = "greeting"
	ProfileGateway      ProfileName = "gateway"
	ProfileConfig       ProfileName = "config"
)

// Surface names a part of the interface that a whole profile relies on; the steps' preflight tells which ones
// a target lacks.
type Surface string

// SurfaceCheckToken is UAA's POST /check_token (spec 4.1).
const SurfaceCheckToken Surface = "check_token"

// Capability is an optional capability a target may declare: behaviour the spec leaves "not shown", or UAA's
// where a standard server differs. A scenario that needs one carries @capability-<name>; without the
// declaration it is reported as not supported.
type Capability string

// The capabilities; Capabilities gives what each one means.
const (
	CapAuthProvisioning          Capability = "auth.provisioning"
	CapAuthUserinfoClaims        Capability = "auth.userinfo-claims"
	CapAuthIssuerIsTokenEndpoint Capability = "auth.issuer-is-token-endpoint"
	CapAuthProvisioningErrors    Capability = "auth.provisioning-errors"
	CapAuthScopeChoice           Capability = "auth.scope-choice"
	CapAuthRememberedConsent     Capability = "auth.remembered-consent"
	CapAuthRedirectURIErrors     Capability = "auth.redirect-uri-errors"
	CapAuthReplayRevokes         Capability = "auth.replay-revokes"
	CapAuthRefreshRotation       Capability = "auth.refresh-rotation"
	CapAuthTokenLifetimes        Capability = "auth.token-lifetimes"
	CapAuthRevocation            Capability = "auth.revocation"
	CapAuthAccountLockout        Capability = "auth.account-lockout"
	CapAuthLockoutHidesUsers     Capability = "auth.lockout-hides-users"
	CapAuthLockoutPeriod         Capability = "auth.lockout-period"
	CapAuthLockoutWindow         Capability = "auth.lockout-window"
	CapAuthCodeLifetime          Capability = "auth.code-lifetime"
	CapAuthPasswordPolicy        Capability = "auth.password-policy"
	CapFortuneRFC6750Errors      Capability = "fortune.rfc6750-errors"
	CapFortuneHeaderForms        Capability = "fortune.header-forms"
	CapGatewayDistinctAbsent     Capability = "gateway.distinct-absent"
	CapGatewayAllUnits           Capability = "gateway.all-units"
	CapGatewayExactHeaders       Capability = "gateway.exact-headers"
	CapGatewayHTTPS              Capability = "gateway.https"
	CapGatewayInstances          Capability = "gateway.instances"
	CapGatewayAccessLog          Capability = "gateway.access-log"
	CapGatewayCost               Capability = "gateway.cost"
	CapGreetingErrorPages        Capability = "greeting.error-pages"
	CapConfigProfileLists        Capability = "config.profile-lists"
	CapConfigSharedFiles         Capability = "config.shared-files"
	CapConfigLabelForms          Capability = "config.label-forms"
	CapConfigFlatFormats         Capability = "config.flat-formats"
	CapConfigErrors              Capability = "config.errors"
	CapConfigEnvMasksSecrets     Capability = "config.env-masks-secrets"
	CapConfigBusDestination      Capability = "config.bus-destination"
	CapConfigBusSpringWire       Capability = "config.bus-spring-wire"
)

// CapabilityDoc is a capability with what it means, as tck capabilities prints it.
type CapabilityDoc struct {
	Name Capability
	Doc  string
	// Implied is set for a capability a target declares with a field rather than in its capabilities list
	// (auth.provisioning: services.authServer.provisioning); DeclaredBy names that field.
	Implied    bool
	DeclaredBy string
}

// Capabilities lists every capability, sorted by name.
var Capabilities = []CapabilityDoc{
	{Name: CapAuthAccountLockout, Doc: "after lockoutAfterFailures failed sign-ins in a row (UAA's lockoutPolicy: 5 by default) the user's right password is refused too, and the sign-in page says the same whichever password was typed"},
	{Name: CapAuthCodeLifetime, Implied: true, DeclaredBy: "services.authServer.codeLifetimeSeconds", Doc: "an authorization code exchanged after codeLifetimeSeconds gets 400 invalid_grant with UAA's description, \"Authorization code expired: <code>\" (or \"Invalid authorization code: <code>\" once UAA's clean-up removed it); declared by services.authServer.codeLifetimeSeconds, walked when it is at most 10 s"},
	{Name: CapAuthIssuerIsTokenEndpoint, Doc: "the issuer (discovery, and iss of every token) is the token endpoint's address, as UAA's is (spec 9.2)"},
	{Name: CapAuthLockoutHidesUsers, Doc: "a sign-in with an unknown user name is answered as a wrong password of a user is, attempt by attempt, lockout included (UAA itself never locks an unknown name, which tells them apart)"},
	{Name: CapAuthLockoutPeriod, Implied: true, DeclaredBy: "services.authServer.lockoutPeriodSeconds", Doc: "a locked user is refused until lockoutPeriodSeconds have passed since the latest failed sign-in, and then the right password signs in (UAA's lockoutPolicy); declared by services.authServer.lockoutPeriodSeconds, walked when it is at most 10 s"},
	{Name: CapAuthLockoutWindow, Implied: true, DeclaredBy: "services.authServer.countFailuresWithinSeconds", Doc: "a failed sign-in older than countFailuresWithinSeconds no longer counts toward the lockout (UAA's lockoutPolicy); declared by services.authServer.countFailuresWithinSeconds, walked when it is at most 10 s"},
	{Name: CapAuthPasswordPolicy, Doc: "the provisioning API refuses a user whose password breaks the password policy (UAA's defaults at least: 1 to 255 characters) with 400 invalid_password, and creates nothing"},
	{Name: CapAuthProvisioning, Implied: true, DeclaredBy: "services.authServer.provisioning", Doc: "UAA's provisioning API (declared by services.authServer.provisioning, not in this list): fresh users and clients for every scenario"},
	{Name: CapAuthProvisioningErrors, Doc: "409 for duplicates, 401 without a token and 403 without the authority at the provisioning API"},
	{Name: CapAuthRedirectURIErrors, Doc: "an unregistered redirect_uri gets a 400 page and no redirect"},
	{Name: CapAuthRefreshRotation, Doc: "a refresh token works once: using it again gets invalid_grant"},
	{Name: CapAuthRememberedConsent, Doc: "a user who approved a client once is not asked again"},
	{Name: CapAuthReplayRevokes, Doc: "replaying an authorization code revokes the tokens issued from it"},
	{Name: CapAuthRevocation, Doc: "RFC 7009 revocation at the revocation endpoint; the token is then reported inactive (check_token, else introspection)"},
	{Name: CapAuthScopeChoice, Doc: "the consent page has a box per scope, and scopes whose boxes the user unticks are not granted"},
	{Name: CapAuthTokenLifetimes, Doc: "access_token_validity in a client registration of the provisioning API sets the lifetime of its tokens (seconds)"},
	{Name: CapAuthUserinfoClaims, Doc: "userinfo names the user (user_name or preferred_username) and gives the e-mail address for a token with openid alone, as UAA does"},
	{Name: CapConfigBusDestination, Doc: "POST /bus/refresh?destination=<pattern> refreshes only the instances whose service id matches the pattern (Spring's rules, \":\" as separator)"},
	{Name: CapConfigBusSpringWire, Implied: true, DeclaredBy: "services.configApp.broker", Doc: "the refresh bus is Spring Cloud Bus on the RabbitMQ broker services.configApp.broker names (declared by that field, not in this list): the bus refresh publishes a RefreshRemoteApplicationEvent on the exchange springCloudBus, each instance it addresses acknowledges it, and a refresh a Spring instance publishes reaches the instances it addresses and no others"},
	{Name: CapConfigEnvMasksSecrets, Doc: "the application's /env shows ****** for keys ending in password, secret, key or token or containing credentials, as Spring Boot 1.x does"},
	{Name: CapConfigErrors, Doc: "404, 400 and 500 answers with a JSON error body for bad labels, paths and files"},
	{Name: CapConfigFlatFormats, Doc: "merged documents at /{app}-{profile}.yml|.yaml|.properties|.json and under /{label}/"},
	{Name: CapConfigLabelForms, Doc: "tags and commit ids as labels, and (_) for a slash in a label"},
	{Name: CapConfigProfileLists, Doc: "several comma-separated profiles in one request, the last one winning"},
	{Name: CapConfigSharedFiles, Doc: "application.yml and application-<profile>.yml apply to every application"},
	{Name: CapFortuneHeaderForms, Doc: "the Authorization header in the forms RFC 6750 2.1 allows beyond the plain one: Bearer followed by more than one space is read; a request with two Authorization headers is refused with 400 invalid_request and a Bearer challenge (RFC 6750 3.1)"},
	{Name: CapFortuneRFC6750Errors, Doc: "refusals are 401 or 403 with a Bearer challenge and RFC 6750 error codes"},
	{Name: CapGatewayAccessLog, Doc: "a JSON access log with the fields of spec 6.3, readable from files the target names"},
	{Name: CapGatewayAllUnits, Doc: "units beyond Minute (Second, Hour and Day are used), with fixed windows aligned to the epoch"},
	{Name: CapGatewayCost, Doc: "a Global rule's cost (Envoy Gateway's rules[].cost): request and response cost from a Number (0 checks the counter without spending it), and a negative, non-number or unknown-source cost refused"},
	{Name: CapGatewayDistinctAbsent, Doc: "a request without the header a Distinct selector names is neither counted nor limited by that rule"},
	{Name: CapGatewayExactHeaders, Doc: "a header selector of type Exact (with value) admits only requests whose header has exactly that value, or with invert any other value; the selectors of a rule must all hold"},
	{Name: CapGatewayHTTPS, Doc: "the route is served and limited on an HTTPS listener too (GET and HEAD)"},
	{Name: CapGatewayInstances, Doc: "two gateway instances (declared in the target) share one Global counter"},
	{Name: CapGreetingErrorPages, Doc: "a denied consent renders a page that says access was denied; another error the authorization server sends back (server_error, invalid_scope) an error page (4xx or 5xx) that names it and does not say access was denied"},
}

// Doc is what the capability means; empty for a name not in the registry.
func (c Capability) Doc() string {
	if d, ok := LookupCapability(string(c)); ok {
		return d.Doc
	}
	return ""
}

// LookupCapability finds a capability of the registry by name.
func LookupCapability(name string) (CapabilityDoc, bool) {
	i := slices.IndexFunc(Capabilities, func(d CapabilityDoc) bool { return string(d.Name) == name })
	if i < 0 {
		return CapabilityDoc{}, false
	}
	return Capabilities[i], true
}

// DeclarableCapabilities are the capabilities a target file may list under capabilities: (every one but the
// implied ones), sorted.
func DeclarableCapabilities() []Capability {
	var out []Capability
	for _, d := range Capabilities {
		if !d.Implied {
			out = append(out, d.Name)
		}
	}
	return out
}

// Fixture names an identity a scenario may need beyond the reader and the web client (@fixture-<name>).
type Fixture string

// The fixtures.
const (
	FixtureOutsider         Fixture = "outsider"
	FixtureResourceClient   Fixture = "resource-client"
	FixtureShortLivedClient Fixture = "short-lived-client"
)

// Fixtures lists every fixture.
var Fixtures = []Fixture{FixtureOutsider, FixtureResourceClient, FixtureShortLivedClient}

// Field is the field of a target file that provides the fixture.
func (f Fixture) Field() string {
	switch f {
	case FixtureOutsider:
		return "fixtures.users.outsider"
	case FixtureResourceClient:
		return "fixtures.clients.resource"
	case FixtureShortLivedClient:
		return "fixtures.clients.shortLived"
	}
	return ""
}

// ProvisionedWith is the capability an administration API needs to make the fixture when the target file gives
// no entry for it (auth.token-lifetimes: a client registered with a short lifetime is a short-lived client), if
// any; the others it makes with provisioning alone.
func (f Fixture) ProvisionedWith() Capability {
	if f == FixtureShortLivedClient {
		return CapAuthTokenLifetimes
	}
	return ""
}

// RequirementKind tells services (their absence means "not under test") from capabilities and fixtures (their
// absence means "not supported").
type RequirementKind string

// The requirement kinds.
const (
	NeedsService    RequirementKind = "service"
	NeedsCapability RequirementKind = "capability"
	NeedsFixture    RequirementKind = "fixture"
)

// Outcome is what happened to one scenario in a run.
type Outcome string

// The outcomes, from the run's point of view. Unsupported (the target does not declare a capability the
// scenario needs) is neither a skip nor a failure.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped" // left out by a tag filter
	// Blocked: a precondition failed (or a surface the whole profile needs is missing) before the scenario
	// reached the behaviour it is named for. It is not a failure of that behaviour, and not a pass either.
	Blocked Outcome = "blocked"
	// Unsupported: the scenario needs a capability or a fixture the target does not declare.
	Unsupported Outcome = "unsupported"
	// NotUnderTest: the scenario needs a service the target does not declare.
	NotUnderTest Outcome = "not under test"
)

// Result sums up a profile's core or extended scenarios, with the Gateway API ConformanceReport's values.
type Result string

// The results.
const (
	ResultSuccess Result = "success"
	// ResultPartial: nothing failed, some scenarios were skipped.
	ResultPartial Result = "partial"
	// ResultBlocked: nothing failed, but some scenarios could not reach their behaviour.
	ResultBlocked Result = "blocked"
	ResultFailure Result = "failure"
	// ResultNotSupported: nothing ran, because the target declares none of what the scenarios need.
	ResultNotSupported Result = "notSupported"
)

// Strings converts typed names to strings.
func Strings[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// List joins names for a message: "a, b, c".
func List[T ~string](xs []T) string { return strings.Join(Strings(xs), ", ") }
