// Package target reads and validates a target description: the YAML file that tells the harness where an
// implementation under test runs, how to reach what cannot be done over the wire, and which optional
// capabilities it declares. Service and capability names are those of the registry (package features), and a
// mistake in one lists the registry's names.
package target

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
)

// Target describes one implementation under test.
type Target struct {
	Implementation Implementation `yaml:"implementation"`
	Services       Services       `yaml:"services"`
	// Capabilities are the optional capabilities (features.Capabilities) the implementation declares, typed
	// as the registry's; a name the registry lacks decodes and is then named by validation.
	Capabilities []features.Capability `yaml:"capabilities"`
	// AllowedOrigins are origins (scheme://host[:port]) the harness may contact besides those of the services
	// above, such as a login application on an origin of its own (Origins).
	AllowedOrigins []string `yaml:"allowedOrigins,omitempty"`
}

// Implementation identifies the implementation in reports, as in the Gateway API ConformanceReport.
type Implementation struct {
	Organization string   `yaml:"organization"`
	Project      string   `yaml:"project"`
	URL          string   `yaml:"url"`
	Version      string   `yaml:"version"`
	Contact      []string `yaml:"contact"`
}

// Services holds one entry per service; a service left out means its area is not under test.
type Services struct {
	AuthServer   *AuthServer   `yaml:"authServer"`
	Fortune      *Service      `yaml:"fortune"`
	Greeting     *Service      `yaml:"greeting"`
	ConfigServer *ConfigServer `yaml:"configServer"`
	ConfigApp    *ConfigApp    `yaml:"configApp"`
	Gateway      *Gateway      `yaml:"gateway"`
}

// Gateway is the gateway of spec 4.6 with its rate-limit policy. Scenarios hand it their own manifests
// (an HTTPRoute and a Backend for a host of their own, a BackendTrafficPolicy) and send requests through it to
// an upstream the harness runs.
type Gateway struct {
	// Instances are the gateway's proxies, each with its HTTP and HTTPS listener; two are needed to verify
	// that Global counters are shared.
	Instances []GatewayInstance `yaml:"instances"`
	// GatewayName is the Gateway resource the scenarios' HTTPRoutes attach to.
	GatewayName string `yaml:"gatewayName"`
	// ManifestDir is a folder the gateway watches: the harness writes each manifest there as a file. Or:
	ManifestDir string `yaml:"manifestDir"`
	// Apply is a shell command that applies the manifest in the file $TCK_MANIFEST (e.g. kubectl apply -f).
	Apply string `yaml:"apply"`
	// Delete is a shell command that removes what Apply applied, given the same $TCK_MANIFEST and
	// $TCK_MANIFEST_NAME (e.g. kubectl delete --ignore-not-found -f). Without it, the manifests the suite
	// applies stay in the gateway, and the report names them as left behind.
	Delete string `yaml:"delete"`
	// AccessLogs are files holding each instance's JSON access log, for the access-log scenario.
	AccessLogs []string `yaml:"accessLogs"`
	// HarnessHost is the address at which the gateway reaches the harness's upstream (default 127.0.0.1).
	HarnessHost string `yaml:"harnessHost"`
}

// GatewayInstance is one proxy's listeners.
type GatewayInstance struct {
	HTTP  string `yaml:"http"`
	HTTPS string `yaml:"https"`
}

// Service is a service the harness reaches at a base URL and needs nothing else of. The greeting client must
// be registered at the authorization server by whoever runs it; the fortune service validates tokens of that
// authorization server.
type Service struct {
	URL string `yaml:"url"`
	// Container, when given, is started by the harness; URL then defaults to its address.
	Container *Container `yaml:"container"`
}

// HasService reports whether the target declares the service (a name of features.Services).
func (t *Target) HasService(s features.Service) bool {
	switch s {
	case features.AuthServer:
		return t.Services.AuthServer != nil
	case features.Fortune:
		return t.Services.Fortune != nil
	case features.Gateway:
		return t.Services.Gateway != nil
	case features.Greeting:
		return t.Services.Greeting != nil
	case features.ConfigServer:
		return t.Services.ConfigServer != nil
	case features.ConfigApp:
		return t.Services.ConfigApp != nil
	}
	return false
}

// ConfigServer is the configuration server of spec 4.4.
type ConfigServer struct {
	URL string `yaml:"url"`
	// Repository is the git repository the server reads; the harness commits its test files to it, on the
	// default label master and on branches and tags of unique names.
	Repository Repository `yaml:"repository"`
	// Container, when given, is started by the harness; URL then defaults to its address.
	Container *Container `yaml:"container"`
}

// ConfigApp is the configuration client application of spec 4.5. Its application name and active profiles are
// fixed when it starts, so the harness starts the instances each scenario needs with Start, a shell command that
// runs one instance in the foreground until it gets SIGTERM. The command finds in its environment:
//
//	TCK_APP_NAME            the application name (bootstrap configuration)
//	TCK_PROFILES            the active profiles, comma-separated, empty for none
//	SPRING_PROFILES_ACTIVE  the same
//	TCK_PORT                the port to listen on, on the loopback interface
//	TCK_CONFIG_URL          the configuration server's URL
//
// Instances of one run must share a message broker, so that /bus/refresh on one refreshes all.
type ConfigApp struct {
	Start string `yaml:"start"`
	// Broker is the AMQP URL of the RabbitMQ broker the instances' refresh bus runs on, Spring Cloud Bus's wire
	// (amqp://user:password@host:port/vhost, or amqps://). Giving it declares config.bus-spring-wire: scenarios
	// then bind a queue of their own to the exchange springCloudBus, watch what the bus refresh publishes and
	// publish refresh events themselves; the queue goes when the scenario ends.
	Broker string `yaml:"broker"`
	// Paths are where the instances answer the operational endpoints; the defaults are Spring Boot 1.x's, the
	// spec's. An application on Spring Boot 2 or 3 answers at /actuator/... (docs/spring-boot.md).
	Paths ConfigAppPaths `yaml:"paths"`
	// StartTimeout bounds the wait for a started instance to answer HTTP (default 60s).
	StartTimeout Duration `yaml:"startTimeout"`
	// HarnessHost is the address at which instances reach the servers the harness runs for them, such as the
	// quote source (default 127.0.0.1).
	HarnessHost string `yaml:"harnessHost"`
}

// ConfigAppPaths are the configuration application's operational endpoints. The scenarios name them by the
// spec's paths (POST /refresh, POST /bus/refresh[?destination=...], GET /env, GET /loggers/{name}), and the
// harness sends each request to the path given here.
type ConfigAppPaths struct {
	// Refresh refreshes one instance (POST); default /refresh, Spring Boot 2 and 3: /actuator/refresh.
	Refresh string `yaml:"refresh"`
	// BusRefresh refreshes every instance (POST); default /bus/refresh, Boot 2 and 3: /actuator/busrefresh.
	BusRefresh string `yaml:"busRefresh"`
	// BusRefreshDestination refreshes the instances {destination} matches (POST); default
	// /bus/refresh?destination={destination}, Boot 2 and 3: /actuator/busrefresh/{destination}.
	BusRefreshDestination string `yaml:"busRefreshDestination"`
	// Env lists the configuration (GET); default /env, Boot 2 and 3: /actuator/env.
	Env string `yaml:"env"`
	// Loggers describes a logger at <loggers>/<name> (GET); default /loggers, Boot 2 and 3: /actuator/loggers.
	Loggers string `yaml:"loggers"`
}

// DestinationPlaceholder marks where busRefreshDestination takes the destination.
const DestinationPlaceholder = "{destination}"

// Boot1Paths are Spring Boot 1.x's operational endpoints, the spec's: the defaults.
var Boot1Paths = ConfigAppPaths{Refresh: "/refresh", BusRefresh: "/bus/refresh",
	BusRefreshDestination: "/bus/refresh?destination=" + DestinationPlaceholder, Env: "/env", Loggers: "/loggers"}

// ActuatorPaths are Spring Boot 2 and 3's.
var ActuatorPaths = ConfigAppPaths{Refresh: "/actuator/refresh", BusRefresh: "/actuator/busrefresh",
	BusRefreshDestination: "/actuator/busrefresh/" + DestinationPlaceholder, Env: "/actuator/env", Loggers: "/actuator/loggers"}

// Duration is a time.Duration written as in Go ("30s", "2m").
type Duration time.Duration

// MarshalYAML writes a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: %q is not a positive duration such as 30s or 2m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Repository is a git repository the harness may push to with go-git. Username and password are for http(s)
// URLs; ssh URLs use the ssh agent.
type Repository struct {
	URI      string `yaml:"uri"`
	Username string `yaml:"username"`
	Password string `yaml:"password"`
}

// ProvisioningCapability is implied by an administration API in the target (services.authServer.provisioning).
const ProvisioningCapability = features.CapAuthProvisioning

// BusWireCapability is implied by the configuration application's broker (services.configApp.broker).
const BusWireCapability = features.CapConfigBusSpringWire

// Has reports whether the target declares the capability.
func (t *Target) Has(c features.Capability) bool {
	switch c {
	case ProvisioningCapability:
		return t.Services.AuthServer.ProvisioningAPI() != nil
	case BusWireCapability:
		return t.Services.ConfigApp != nil && t.Services.ConfigApp.Broker != ""
	case features.CapAuthLockoutPeriod, features.CapAuthLockoutWindow, features.CapAuthCodeLifetime:
		return t.Services.AuthServer.walksPeriod(c)
	}
	return slices.Contains(t.Capabilities, c)
}

// Load reads, expands ${VAR} references in, and validates a target file. Every mistake is reported with its
// field path, all at once.
func Load(path string) (*Target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading target file: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("target file %s:\n%w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	t.resolveFiles(dir)
	return t, nil
}

// Parse decodes and validates a target description. Environment references written ${VAR} are expanded first, so
// secrets can stay out of the file.
func Parse(data []byte) (*Target, error) {
	var doc yaml.Node
	expanded, err := expandEnv(string(data))
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal([]byte(expanded), &doc); err != nil {
		return nil, fmt.Errorf("  not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("  the file is empty: it needs at least services")
	}
	problems := unknownFields(doc.Content[0], "", typeOfTarget)
	var t Target
	err = doc.Content[0].Decode(&t)
	var te *yaml.TypeError
	if err != nil && !errors.As(err, &te) {
		return nil, joinProblems(append(problems, typeProblems(err, nil)...))
	}
	if err != nil {
		problems = append(problems, typeProblems(err, fieldPaths(doc.Content[0], "", nil))...)
	}
	// Every mistake at once: what decoded (yaml.v3 goes on past a value of the wrong type) is checked too.
	for _, p := range t.validate() {
		field, _, _ := strings.Cut(p, ":")
		if !slices.ContainsFunc(problems, func(q string) bool { return strings.HasPrefix(q, field+" (line") }) {
			problems = append(problems, p) // not a field whose value was of the wrong type: said already
		}
	}
	if len(problems) > 0 {
		return nil, joinProblems(problems)
	}
	t.applyDefaults()
	return &t, nil
}

func (t *Target) applyDefaults() {
	if cs := t.Services.ConfigServer; cs != nil {
		cs.URL = strings.TrimRight(cs.URL, "/")
	}
	t.Services.AuthServer.applyDefaults()
	for _, svc := range []*Service{t.Services.Fortune, t.Services.Greeting} {
		if svc != nil {
			svc.URL = strings.TrimRight(svc.URL, "/")
		}
	}
	if g := t.Services.Gateway; g != nil {
		if g.HarnessHost == "" {
			g.HarnessHost = "127.0.0.1"
		}
		for i := range g.Instances {
			g.Instances[i].HTTP = strings.TrimRight(g.Instances[i].HTTP, "/")
			g.Instances[i].HTTPS = strings.TrimRight(g.Instances[i].HTTPS, "/")
		}
	}
	if ca := t.Services.ConfigApp; ca != nil {
		if ca.StartTimeout == 0 {
			ca.StartTimeout = Duration(60 * time.Second)
		}
		if ca.HarnessHost == "" {
			ca.HarnessHost = "127.0.0.1"
		}
		ca.Paths = ca.Paths.withDefaults()
	}
	if t.Implementation.Project == "" {
		t.Implementation.Project = "unnamed implementation"
	}
	for _, cs := range t.Containers() {
		if cs.Container.Ready.Timeout == 0 {
			cs.Container.Ready.Timeout = Duration(60 * time.Second)
		}
	}
}

func (t *Target) validate() []string {
	var problems []string
	if t.Services == (Services{}) {
		problems = append(problems, "services: declares no service; name at least one of "+features.List(features.Services))
	}
	problems = append(problems, t.Services.Gateway.validate()...)
	if t.Services.ConfigApp != nil && t.Services.ConfigServer == nil {
		problems = append(problems, "services.configApp: needs services.configServer too: the application reads its configuration there")
	}
	for name, svc := range map[string]*Service{"fortune": t.Services.Fortune, "greeting": t.Services.Greeting} {
		if svc != nil {
			if !deferredURL(svc.Container, svc.URL) {
				problems = append(problems, checkHTTPURL("services."+name+".url", svc.URL)...)
			}
			problems = append(problems, svc.Container.validate("services."+name)...)
			if t.Services.AuthServer == nil {
				problems = append(problems, "services."+name+": needs services.authServer too: its scenarios get tokens and sign users in there")
			}
		}
	}
	problems = append(problems, t.Services.AuthServer.validate()...)
	problems = append(problems, t.Services.ConfigApp.validate()...)
	if cs := t.Services.ConfigServer; cs != nil {
		if !deferredURL(cs.Container, cs.URL) {
			problems = append(problems, checkHTTPURL("services.configServer.url", cs.URL)...)
		}
		problems = append(problems, cs.Container.validate("services.configServer")...)
		problems = append(problems, checkRepositoryURI("services.configServer.repository.uri", cs.Repository.URI)...)
	}
	for i, c := range t.Capabilities {
		switch d, ok := features.LookupCapability(string(c)); {
		case !ok:
			problems = append(problems, fmt.Sprintf("capabilities[%d]: unknown capability %q; known: %s",
				i, c, features.List(features.DeclarableCapabilities())))
		case d.Implied:
			problems = append(problems, fmt.Sprintf("capabilities[%d]: %s is declared by giving %s, not in this list", i, c, d.DeclaredBy))
		}
	}
	if u := t.Implementation.URL; u != "" {
		problems = append(problems, checkHTTPURL("implementation.url", u)...)
	}
	return append(problems, checkOrigins(t.AllowedOrigins)...)
}

func (g *Gateway) validate() []string {
	if g == nil {
		return nil
	}
	var problems []string
	if len(g.Instances) == 0 {
		problems = append(problems, "services.gateway.instances: required: at least one instance with its http (and https) listener URL")
	}
	for i, inst := range g.Instances {
		field := fmt.Sprintf("services.gateway.instances[%d]", i)
		problems = append(problems, checkHTTPURL(field+".http", inst.HTTP)...)
		if inst.HTTPS != "" {
			problems = append(problems, checkHTTPURL(field+".https", inst.HTTPS)...)
		}
	}
	if g.Delete != "" && g.Apply == "" {
		problems = append(problems, "services.gateway.delete: goes with apply (a folder given as manifestDir is cleaned by the harness itself)")
	}
	if (g.ManifestDir == "") == (g.Apply == "") {
		problems = append(problems, "services.gateway: give exactly one of manifestDir (a folder the gateway watches) and apply (a command)")
	}
	if g.GatewayName == "" {
		problems = append(problems, "services.gateway.gatewayName: required: the Gateway resource the scenarios' routes attach to")
	}
	return problems
}

func checkHTTPURL(field, raw string) []string {
	if raw == "" {
		return []string{field + ": required: the base URL of the service, e.g. http://localhost:8888"}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return []string{fmt.Sprintf("%s: %q is not an absolute http(s) URL", field, raw)}
	}
	return nil
}

// scpLike is git's short form of an ssh address, user@host:path.
var scpLike = regexp.MustCompile(`^[^/:@]+@[^/:]+:`)

// isRelativePath tells a relative path (repo.git, ./repos/config, ../config.git) from a URL and git's
// user@host:path.
func isRelativePath(raw string) bool {
	return raw != "" && !strings.HasPrefix(raw, "/") && !strings.Contains(raw, "://") && !scpLike.MatchString(raw) &&
		!strings.Contains(strings.SplitN(raw, "/", 2)[0], ":")
}

func checkRepositoryURI(field, raw string) []string {
	if raw == "" {
		return []string{field + ": required: the git repository the configuration server reads " +
			"(a path, file://, http(s):// or ssh URL); the harness commits its test files to it"}
	}
	if strings.HasPrefix(raw, "/") || isRelativePath(raw) || scpLike.MatchString(raw) {
		return nil // a path (a relative one is the target file's folder's), or git's user@host:path
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return []string{fmt.Sprintf("%s: %q is neither an absolute path nor a URL", field, raw)}
	}
	switch u.Scheme {
	case "file", "http", "https", "ssh", "git":
		return nil
	}
	return []string{fmt.Sprintf("%s: scheme %q is not supported; use a path, file://, http(s)://, ssh:// or git://", field, u.Scheme)}
}

func joinProblems(problems []string) error {
	var b strings.Builder
	for i, p := range problems {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("  " + p)
	}
	return fmt.Errorf("%s", b.String())
}
