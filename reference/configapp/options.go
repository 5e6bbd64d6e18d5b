package configapp

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/bus"
)

// Defaults used when Options leaves a field empty.
const (
	DefaultName      = "greeting-config"
	DefaultConfigURL = "http://localhost:8888"
	// DefaultStartAttempts, DefaultRetryInitial and DefaultRetryMax give
	// five tries over about ten seconds (waits of 1s, 2s, 4s, 4s), enough
	// for a configuration server started at the same moment.
	DefaultStartAttempts = 5
	DefaultRetryInitial  = time.Second
	DefaultRetryMax      = 4 * time.Second
	DefaultFetchTimeout  = 10 * time.Second
	DefaultQuoteTimeout  = 5 * time.Second
)

// ProfilesEnv is the environment variable that holds the active profiles,
// as in Spring; the runner reads it (ParseProfiles) and passes Profiles.
const ProfilesEnv = "SPRING_PROFILES_ACTIVE"

// Options configures an App. The zero value is a usable default.
type Options struct {
	// Name selects the repository files (spring.application.name).
	Name string
	// Profiles are the active profiles; none means "default".
	Profiles []string
	// ConfigURL is the configuration server's base URL.
	ConfigURL string
	// Label is the git label to fetch; empty lets the server choose.
	Label string
	// Bus carries refresh events between instances; nil means none, and
	// POST /bus/refresh answers 503. The App subscribes to it but does not
	// close it: the caller owns it.
	Bus bus.Bus
	// Port and InstanceID make the bus service id "<name>:<port>:<id>"
	// (with Profiles, "<name>:<profiles>:<port>:<id>"); InstanceID defaults
	// to 32 random hex digits, as Spring's.
	Port       int
	InstanceID string
	// Paths chooses where the operational endpoints answer: Spring Boot
	// 1.x's (the zero value) or the actuator's of Spring Boot 2 and later.
	Paths Paths
	// Logger receives the application's log. Its handler's own level is
	// bypassed: which records pass is decided per logger name by the
	// logging.level.* keys of the configuration.
	Logger *slog.Logger
	// RootLevel is the root logger's level when the configuration does not
	// set logging.level.root (zero: INFO, as in Spring Boot).
	RootLevel slog.Level
	// StartAttempts, RetryInitial and RetryMax bound the fetches at start:
	// the wait doubles from RetryInitial up to RetryMax between attempts.
	StartAttempts int
	RetryInitial  time.Duration
	RetryMax      time.Duration
	// FetchTimeout bounds one fetch from the configuration server.
	FetchTimeout time.Duration
	// QuoteTimeout bounds one fetch from the quote source.
	QuoteTimeout time.Duration
	// HTTPClient talks to the configuration server and the quote source.
	HTTPClient *http.Client
}

// withDefaults fills empty fields and checks the configuration server URL.
func (o Options) withDefaults() (Options, error) {
	o.Name = cmp.Or(o.Name, DefaultName)
	o.ConfigURL = strings.TrimSuffix(cmp.Or(o.ConfigURL, DefaultConfigURL), "/")
	o.InstanceID = cmp.Or(o.InstanceID, randomHex(16))
	if o.StartAttempts <= 0 {
		o.StartAttempts = DefaultStartAttempts
	}
	o.RetryInitial = cmp.Or(o.RetryInitial, DefaultRetryInitial)
	o.RetryMax = max(cmp.Or(o.RetryMax, DefaultRetryMax), o.RetryInitial)
	o.FetchTimeout = cmp.Or(o.FetchTimeout, DefaultFetchTimeout)
	o.QuoteTimeout = cmp.Or(o.QuoteTimeout, DefaultQuoteTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	u, err := url.Parse(o.ConfigURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, fmt.Errorf("configapp: invalid configuration server URL %q: want http(s)://host[:port]", o.ConfigURL)
	}
	return o, nil
}

// Paths is a set of operational endpoints.
type Paths int

const (
	// PathsBoot1 are Spring Boot 1.x's, the spec's: POST /refresh, POST
	// /bus/refresh[?destination=], GET /env, /loggers[/{name}], /health.
	PathsBoot1 Paths = iota
	// PathsActuator are Spring Boot 2 and 3's: POST /actuator/refresh, POST
	// /actuator/busrefresh[/{destination}], GET /actuator/env (Boot 2's
	// shape), /actuator/loggers[/{name}], /actuator/health.
	PathsActuator
)

// PathsNames are the names ParsePaths accepts, in Paths order.
var PathsNames = []string{"boot1", "actuator"}

// ParsePaths reads a Paths by name: boot1 or actuator.
func ParsePaths(s string) (Paths, error) {
	for i, n := range PathsNames {
		if s == n {
			return Paths(i), nil
		}
	}
	return 0, fmt.Errorf("unknown paths %q; valid: %s", s, strings.Join(PathsNames, ", "))
}

// ParseProfiles reads a comma-separated profile list (the value of
// SPRING_PROFILES_ACTIVE): spaces around names and empty names are dropped.
func ParseProfiles(s string) []string {
	var profiles []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			profiles = append(profiles, p)
		}
	}
	return profiles
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand never returns an error
	return hex.EncodeToString(b)
}
