package config

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// configAppSteps are the instances of the configuration application a scenario started and the credentials
// its requests to them carry.
type configAppSteps struct {
	*core.Scenario
	area *Area
	// instances are stopped when the scenario ends; user and passwords (one per instance, or one for all)
	// are the HTTP Basic credentials sent to them.
	instances []Instance
	appNames  []string // each instance's application name
	user      string
	passwords []string
	// logMarks are, per instance, the length of its log when the last request was sent to it: what it
	// logged while answering starts there.
	logMarks     map[int]int
	lastInstance int
	// bus is the scenario's queue on the bus, busEvent the event the last bus step found or published.
	bus      *busWatch
	busEvent map[string]any
}

func (ap *configAppSteps) register(sc *godog.ScenarioContext) {
	sc.After(ap.stopInstances)
	if ap.Services().ConfigApp != nil {
		ap.Lazy["quotes"] = func() (string, error) {
			q, err := ap.area.quoteSource()
			if err != nil {
				return "", err
			}
			return q.base, nil
		}
	}
	sc.Step(`^an instance of "([^"]+)" is started$`, func(ctx context.Context, app string) error {
		return ap.startInstances(ctx, app, startOptions{n: 1})
	})
	sc.Step(`^an instance of "([^"]+)" is started with the profile "([^"]+)"$`, func(ctx context.Context, app, profile string) error {
		return ap.startInstances(ctx, app, startOptions{n: 1, profiles: profile})
	})
	sc.Step(`^(\d) instances of "([^"]+)" are started$`, func(ctx context.Context, n int, app string) error {
		return ap.startInstances(ctx, app, startOptions{n: n})
	})
	sc.Step(`^an instance of "([^"]+)" is started, its configuration naming the user "([^"]+)" with the password "([^"]+)"$`,
		func(ctx context.Context, app, user, password string) error {
			return ap.startInstances(ctx, app, startOptions{n: 1, user: user, password: password})
		})
	sc.Step(`^I open the greeting page$`, func() error { return ap.openPage(0, "/") })
	sc.Step(`^I open the quote page$`, func() error { return ap.openPage(0, "/random-quote") })
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application$`, func(method, path string) error {
		return ap.requestApp(0, method, path, requestOptions{})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application without credentials$`, func(method, path string) error {
		return ap.requestApp(0, method, path, requestOptions{signIn: anonymous})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application with the password "([^"]+)"$`, func(method, path, password string) error {
		return ap.requestApp(0, method, path, requestOptions{password: password})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to instance (\d)$`, func(method, path string, n int) error {
		return ap.requestApp(n-1, method, path, requestOptions{})
	})
	sc.Step(`^the page has the attribute "([^"]+)"$`, ap.PageHas)
	sc.Step(`^the page has no attribute "([^"]+)"$`, ap.pageHasNo)
	sc.Step(`^the page attribute "([^"]+)" is "([^"]*)"$`, ap.pageAttributeIs)
	sc.Step(`^the answer lists the changed key "([^"]+)"$`, ap.answerListsKey)
	sc.Step(`^the answer asks for HTTP Basic credentials$`, ap.answerAsksForBasic)
	sc.Step(`^the quote source serves "([^"]+)" with the quote "([^"]+)"$`, ap.quoteSourceServes)
	sc.Step(`^within (\d+) seconds the greeting page of every instance has the attribute "([^"]+)"$`, ap.eventuallyEveryInstanceHas)
	sc.Step(`^within (\d+) seconds the greeting page of instance (\d) has the attribute "([^"]+)"$`,
		func(seconds, n int, name string) error { return ap.eventuallyInstanceHas(n-1, seconds, name) })
	sc.Step(`^for (\d+) seconds? the greeting page of instance (\d) has no attribute "([^"]+)"$`,
		func(seconds, n int, name string) error { return ap.instanceLacksFor(n-1, seconds, name) })
	sc.Step(`^the application logged a DEBUG line while answering$`, func() error { return ap.loggedDebug(debugLogged) })
	sc.Step(`^the application logged no DEBUG line while answering$`, func() error { return ap.loggedDebug(noDebugLogged) })
	sc.Step(`^the environment has the properties:$`, ap.environmentHas)
	sc.Step(`^the environment lists the active profiles (\[.*\])$`, ap.environmentListsProfiles)
	ap.registerBus(sc)
	ap.registerOutcomes(sc)
}

// startApp is how the harness starts an instance of the target's configuration application.
func (ap *configAppSteps) startApp() (func(ctx context.Context, name, profiles string) (Instance, error), error) {
	start := ap.area.startApp
	if ap.Services().ConfigApp == nil || start == nil {
		return nil, fmt.Errorf("the target declares no configApp")
	}
	return start, nil
}

// startOptions say which instances a scenario starts and how its requests sign in to them.
type startOptions struct {
	n        int
	profiles string
	// user and password are the credentials the instance's configuration sets; empty: the default user "user"
	// with the password each instance generates and writes to its log at start.
	user, password string
}

// startInstances starts instances of an application, stopped when the scenario ends, and keeps the credentials
// requests to them carry: with default security the password of each, read from its log.
func (ap *configAppSteps) startInstances(ctx context.Context, app string, o startOptions) error {
	start, err := ap.startApp()
	if err != nil {
		return err
	}
	if app, err = ap.Expand(app); err != nil {
		return err
	}
	for i := 0; i < o.n; i++ {
		inst, err := start(ctx, app, o.profiles)
		if err != nil {
			return fmt.Errorf("starting an instance of %s: %w", app, err)
		}
		ap.instances = append(ap.instances, inst)
		ap.appNames = append(ap.appNames, app)
	}
	if o.user != "" {
		return ap.authenticate(o.user, o.password)
	}
	return ap.passwordsFromLogs()
}

func (ap *configAppSteps) stopInstances(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	for _, inst := range ap.instances {
		inst.Stop()
	}
	ap.instances, ap.appNames = nil, nil
	return ctx, nil
}

func (ap *configAppSteps) instance(i int) (Instance, error) {
	if i < 0 || i >= len(ap.instances) {
		return nil, fmt.Errorf("instance %d was not started (%d running)", i+1, len(ap.instances))
	}
	return ap.instances[i], nil
}

// generatedPassword is the line Spring Boot writes with the password it generates for user "user": "Using
// default security password: <uuid>" in Boot 1.x (AuthenticationManagerConfiguration), "Using generated
// security password: <uuid>" from Boot 2 on (UserDetailsServiceAutoConfiguration).
var generatedPassword = regexp.MustCompile(`Using (?:default|generated) security password: (\S+)`)

// passwordsFromLogs reads the generated password of user "user" from every instance's log: it is written at
// start, but a slow log writer may lag, so the log is read for up to 5 seconds.
func (ap *configAppSteps) passwordsFromLogs() error {
	ap.user, ap.passwords = "user", nil
	for i, inst := range ap.instances {
		var m []string
		what := fmt.Sprintf("instance %d's log to have a line %q", i+1, "Using default security password: ...")
		err := ap.Until(5*time.Second, what, func() (bool, error) {
			m = generatedPassword.FindStringSubmatch(inst.Log())
			return m != nil, nil
		})
		if err != nil {
			return err
		}
		ap.passwords = append(ap.passwords, m[1])
	}
	return nil
}

func (ap *configAppSteps) authenticate(user, password string) error {
	user, password, err := ap.Expand2(user, password)
	if err != nil {
		return err
	}
	ap.user, ap.passwords = user, []string{password}
	return nil
}

// signIn is whether a request to an instance carries credentials.
type signIn int

const (
	asUser    signIn = iota // the instance's user and password
	anonymous               // no credentials
)

// requestOptions say what a request to an instance carries.
type requestOptions struct {
	signIn signIn
	// password, when set, replaces the instance's password.
	password string
	accept   string
}

func (ap *configAppSteps) requestApp(i int, method, path string, o requestOptions) error {
	inst, err := ap.instance(i)
	if err != nil {
		return err
	}
	if path, err = ap.Expand(path); err != nil {
		return err
	}
	path = operationalPath(ap.Services().ConfigApp.Paths, path)
	if ap.logMarks == nil {
		ap.logMarks = map[int]int{}
	}
	ap.logMarks[i], ap.lastInstance = len(inst.Log()), i
	r := core.Request{Method: method, URL: inst.URL() + path, Accept: o.accept}
	if o.signIn == asUser {
		password := ap.passwords[min(i, len(ap.passwords)-1)]
		if o.password != "" {
			if password, err = ap.Expand(o.password); err != nil {
				return err
			}
		}
		r.User = &core.Credentials{Name: ap.user, Password: password}
	}
	return ap.Send(r)
}

// openPage asks for a page's attributes as JSON, as the application offers them to harnesses.
func (ap *configAppSteps) openPage(i int, path string) error {
	if err := ap.requestApp(i, http.MethodGet, path, requestOptions{accept: "application/json"}); err != nil {
		return err
	}
	if ap.Last.Status != http.StatusOK {
		return ap.Failf("the page answered %d, want 200", ap.Last.Status)
	}
	return nil
}

func (ap *configAppSteps) pageHasNo(name string) error {
	v, ok, err := ap.PageAttribute(name)
	if err != nil {
		return err
	}
	if ok {
		return ap.Failf("the page has the attribute %q = %q, want none", name, v)
	}
	return nil
}

func (ap *configAppSteps) pageAttributeIs(name, want string) error {
	want, err := ap.Expand(want)
	if err != nil {
		return err
	}
	v, ok, err := ap.PageAttribute(name)
	if err != nil {
		return err
	}
	if !ok || v != want {
		return ap.Failf("attribute %q is %q, want %q", name, v, want)
	}
	return nil
}

func (ap *configAppSteps) answerListsKey(key string) error {
	a, err := ap.Answer()
	if err != nil {
		return err
	}
	v, err := a.JSON()
	if err != nil {
		return err
	}
	keys, ok := v.([]any)
	if !ok {
		return ap.Failf("the answer is not a JSON array of keys")
	}
	for _, k := range keys {
		if k == key {
			return nil
		}
	}
	return ap.Failf("the changed keys %s do not include %q", core.MustJSON(keys), key)
}

func (ap *configAppSteps) answerAsksForBasic() error {
	a, err := ap.Answer()
	if err != nil {
		return err
	}
	if a.Status != http.StatusUnauthorized {
		return ap.Failf("status %d, want 401", a.Status)
	}
	if h := a.Header.Get("WWW-Authenticate"); !strings.HasPrefix(strings.ToLower(h), "basic") {
		return ap.Failf("WWW-Authenticate is %q, want a Basic challenge", h)
	}
	return nil
}

func (ap *configAppSteps) quoteSourceServes(path, quote string) error {
	path, quote, err := ap.Expand2(path, quote)
	if err != nil {
		return err
	}
	q, err := ap.area.quoteSource()
	if err != nil {
		return err
	}
	q.set(path, quote)
	return nil
}

// eventuallyEveryInstanceHas polls each instance's greeting page: the bus delivers asynchronously, so a
// scenario waits for it, bounded by the given seconds.
func (ap *configAppSteps) eventuallyEveryInstanceHas(seconds int, name string) error {
	for i := range ap.instances {
		if err := ap.eventuallyInstanceHas(i, seconds, name); err != nil {
			return err
		}
	}
	return nil
}

func (ap *configAppSteps) eventuallyInstanceHas(i, seconds int, name string) error {
	if _, err := ap.instance(i); err != nil {
		return err
	}
	what := fmt.Sprintf("instance %d's greeting page to have the attribute %q", i+1, name)
	return ap.Until(time.Duration(seconds)*time.Second, what, func() (bool, error) {
		v, ok, err := ap.greetingAttribute(i, name)
		return ok && v != "", err
	})
}

// instanceLacksFor watches instance i's greeting page for seconds: an instance a refresh event was not
// addressed to must not refresh, neither at once nor when the event (or its echo) reaches it a little later.
func (ap *configAppSteps) instanceLacksFor(i, seconds int, name string) error {
	if _, err := ap.instance(i); err != nil {
		return err
	}
	what := fmt.Sprintf("instance %d's greeting page has the attribute %q", i+1, name)
	return ap.Never(time.Duration(seconds)*time.Second, what, func() (string, error) {
		v, ok, err := ap.greetingAttribute(i, name)
		if ok {
			return fmt.Sprintf("%q, want none", v), err
		}
		return "", err
	})
}

// greetingAttribute opens instance i's greeting page and reads one of its attributes.
func (ap *configAppSteps) greetingAttribute(i int, name string) (string, bool, error) {
	if err := ap.openPage(i, "/"); err != nil {
		return "", false, err
	}
	return ap.PageAttribute(name)
}

// debugLine is a log line at level DEBUG: the level where loggers write it, one of a line's first words
// (Logback's "2026-11-25 10:00:00.000 DEBUG 4242 --- [main] ...", log4j's "10:00:00 [main] DEBUG ..."), a
// level field (log/slog's text "level=DEBUG", JSON "level":"DEBUG"). A line at another level that mentions
// DEBUG in its message ("set logging.level.root to DEBUG") is not one.
var debugLine = regexp.MustCompile(`(?m)^(?:(?:\S+\s+){0,4}\[?DEBUG\]?(?:\s|:|$)|.*\blevel=DEBUG\b|.*"level"\s*:\s*"DEBUG").*$`)

// debugExpectation is whether a step expects a DEBUG line in what the instance logged while answering.
type debugExpectation int

const (
	debugLogged debugExpectation = iota
	noDebugLogged
)

// quietFor is how long after an answer the log is watched for a DEBUG line that must not come: long enough
// for an asynchronous appender (Logback's AsyncAppender hands lines to its writer within milliseconds).
const quietFor = time.Second

// loggedDebug looks at what the last instance asked logged since the request was sent. A line may reach the
// log after the answer: a DEBUG line is awaited (5 seconds at most), and its absence watched for quietFor.
func (ap *configAppSteps) loggedDebug(want debugExpectation) error {
	i := ap.lastInstance
	inst, err := ap.instance(i)
	if err != nil {
		return err
	}
	since := func() string { return inst.Log()[min(ap.logMarks[i], len(inst.Log())):] }
	if want == noDebugLogged {
		what := fmt.Sprintf("instance %d logged a DEBUG line while answering (watched for %s)", i+1, quietFor)
		return ap.Never(quietFor, what, func() (string, error) { return debugLine.FindString(since()), nil })
	}
	return ap.Until(5*time.Second, fmt.Sprintf("instance %d to log a DEBUG line", i+1), func() (bool, error) {
		return debugLine.MatchString(since()), nil
	})
}
