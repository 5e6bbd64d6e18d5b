package steps

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

func (w *world) registerConfigAppSteps(sc *godog.ScenarioContext) {
	sc.Step(`^an instance of "([^"]+)" is started$`, func(ctx context.Context, app string) error {
		return w.startInstances(ctx, app, startOptions{n: 1})
	})
	sc.Step(`^an instance of "([^"]+)" is started with the profile "([^"]+)"$`, func(ctx context.Context, app, profile string) error {
		return w.startInstances(ctx, app, startOptions{n: 1, profiles: profile})
	})
	sc.Step(`^(\d) instances of "([^"]+)" are started$`, func(ctx context.Context, n int, app string) error {
		return w.startInstances(ctx, app, startOptions{n: n})
	})
	sc.Step(`^an instance of "([^"]+)" is started, its configuration naming the user "([^"]+)" with the password "([^"]+)"$`,
		func(ctx context.Context, app, user, password string) error {
			return w.startInstances(ctx, app, startOptions{n: 1, user: user, password: password})
		})
	sc.Step(`^I open the greeting page$`, func() error { return w.openPage(0, "/") })
	sc.Step(`^I open the quote page$`, func() error { return w.openPage(0, "/random-quote") })
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application$`, func(method, path string) error {
		return w.requestApp(0, method, path, requestOptions{credentials: true})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application without credentials$`, func(method, path string) error {
		return w.requestApp(0, method, path, requestOptions{})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application with the password "([^"]+)"$`, func(method, path, password string) error {
		return w.requestApp(0, method, path, requestOptions{credentials: true, password: password})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to instance (\d)$`, func(method, path string, n int) error {
		return w.requestApp(n-1, method, path, requestOptions{credentials: true})
	})
	sc.Step(`^the page has the attribute "([^"]+)"$`, w.pageHas)
	sc.Step(`^the page has no attribute "([^"]+)"$`, w.pageHasNo)
	sc.Step(`^the page attribute "([^"]+)" is "([^"]*)"$`, w.pageAttributeIs)
	sc.Step(`^the answer lists the changed key "([^"]+)"$`, w.answerListsKey)
	sc.Step(`^the answer asks for HTTP Basic credentials$`, w.answerAsksForBasic)
	sc.Step(`^the quote source serves "([^"]+)" with the quote "([^"]+)"$`, w.quoteSourceServes)
	sc.Step(`^within (\d+) seconds the greeting page of every instance has the attribute "([^"]+)"$`, w.eventuallyEveryInstanceHas)
	sc.Step(`^within (\d+) seconds the greeting page of instance (\d) has the attribute "([^"]+)"$`,
		func(seconds, n int, name string) error { return w.eventuallyInstanceHas(n-1, seconds, name) })
	sc.Step(`^I open the greeting page of instance (\d)$`, func(n int) error { return w.openPage(n-1, "/") })
	sc.Step(`^the application logged a DEBUG line while answering$`, func() error { return w.loggedDebug(true) })
	sc.Step(`^the application logged no DEBUG line while answering$`, func() error { return w.loggedDebug(false) })
	sc.Step(`^the environment has the properties:$`, w.environmentHas)
}

func (w *world) configApp() (*ConfigApp, error) {
	ca := w.suite.env.ConfigApp
	if ca == nil {
		return nil, fmt.Errorf("the target declares no configApp")
	}
	return ca, nil
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
func (w *world) startInstances(ctx context.Context, app string, o startOptions) error {
	ca, err := w.configApp()
	if err != nil {
		return err
	}
	if app, err = w.expand(app); err != nil {
		return err
	}
	for i := 0; i < o.n; i++ {
		inst, err := ca.Start(ctx, app, o.profiles)
		if err != nil {
			return fmt.Errorf("starting an instance of %s: %w", app, err)
		}
		w.instances = append(w.instances, inst)
	}
	if o.user != "" {
		return w.authenticate(o.user, o.password)
	}
	return w.passwordsFromLogs()
}

func (w *world) stopInstances(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	for _, inst := range w.instances {
		inst.Stop()
	}
	w.instances = nil
	return ctx, nil
}

func (w *world) instance(i int) (Instance, error) {
	if i < 0 || i >= len(w.instances) {
		return nil, fmt.Errorf("instance %d was not started (%d running)", i+1, len(w.instances))
	}
	return w.instances[i], nil
}

var generatedPassword = regexp.MustCompile(`Using default security password: (\S+)`)

// passwordsFromLogs reads the generated password of user "user" from every instance's log: it is written at
// start, but a slow log writer may lag, so the log is read for up to 5 seconds.
func (w *world) passwordsFromLogs() error {
	w.user, w.passwords = "user", nil
	for i, inst := range w.instances {
		var m []string
		for deadline := time.Now().Add(5 * time.Second); m == nil && time.Now().Before(deadline); {
			if m = generatedPassword.FindStringSubmatch(inst.Log()); m == nil {
				time.Sleep(50 * time.Millisecond)
			}
		}
		if m == nil {
			return fmt.Errorf("instance %d's log has no line %q", i+1, "Using default security password: ...")
		}
		w.passwords = append(w.passwords, m[1])
	}
	return nil
}

func (w *world) authenticate(user, password string) error {
	user, password, err := w.expand2(user, password)
	if err != nil {
		return err
	}
	w.user, w.passwords = user, []string{password}
	return nil
}

// requestOptions say what a request to an instance carries.
type requestOptions struct {
	// credentials sends the instance's user and password; password, when set, replaces the password.
	credentials bool
	password    string
	accept      string
}

func (w *world) requestApp(i int, method, path string, o requestOptions) error {
	inst, err := w.instance(i)
	if err != nil {
		return err
	}
	if path, err = w.expand(path); err != nil {
		return err
	}
	req, err := http.NewRequest(method, inst.URL()+path, nil)
	if err != nil {
		return err
	}
	if w.logMarks == nil {
		w.logMarks = map[int]int{}
	}
	w.logMarks[i], w.lastInstance = len(inst.Log()), i
	if o.accept != "" {
		req.Header.Set("Accept", o.accept)
	}
	if o.credentials {
		password := w.passwords[min(i, len(w.passwords)-1)]
		if o.password != "" {
			if password, err = w.expand(o.password); err != nil {
				return err
			}
		}
		req.SetBasicAuth(w.user, password)
	}
	return w.do(req)
}

// openPage asks for a page's attributes as JSON, as the application offers them to harnesses.
func (w *world) openPage(i int, path string) error {
	if err := w.requestApp(i, http.MethodGet, path, requestOptions{credentials: true, accept: "application/json"}); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return w.failf("the page answered %d, want 200", w.last.status)
	}
	return nil
}

func (w *world) pageAttribute(name string) (string, bool, error) {
	obj, err := w.jsonObject()
	if err != nil {
		return "", false, err
	}
	attr, ok := obj[name]
	if !ok || attr == nil {
		return "", false, nil
	}
	s, ok := attr.(string)
	if !ok {
		return "", true, w.failf("attribute %q is %s, want a string", name, mustJSON(attr))
	}
	return s, true, nil
}

func (w *world) pageHas(name string) error {
	v, ok, err := w.pageAttribute(name)
	if err != nil {
		return err
	}
	if !ok || strings.TrimSpace(v) == "" {
		return w.failf("the page has no (or an empty) attribute %q", name)
	}
	return nil
}

func (w *world) pageHasNo(name string) error {
	v, ok, err := w.pageAttribute(name)
	if err != nil {
		return err
	}
	if ok {
		return w.failf("the page has the attribute %q = %q, want none", name, v)
	}
	return nil
}

func (w *world) pageAttributeIs(name, want string) error {
	want, err := w.expand(want)
	if err != nil {
		return err
	}
	v, ok, err := w.pageAttribute(name)
	if err != nil {
		return err
	}
	if !ok || v != want {
		return w.failf("attribute %q is %q, want %q", name, v, want)
	}
	return nil
}

func (w *world) answerListsKey(key string) error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	v, err := a.json()
	if err != nil {
		return err
	}
	keys, ok := v.([]any)
	if !ok {
		return w.failf("the answer is not a JSON array of keys")
	}
	for _, k := range keys {
		if k == key {
			return nil
		}
	}
	return w.failf("the changed keys %s do not include %q", mustJSON(keys), key)
}

func (w *world) answerAsksForBasic() error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	if a.status != http.StatusUnauthorized {
		return w.failf("status %d, want 401", a.status)
	}
	if h := a.header.Get("WWW-Authenticate"); !strings.HasPrefix(strings.ToLower(h), "basic") {
		return w.failf("WWW-Authenticate is %q, want a Basic challenge", h)
	}
	return nil
}

func (w *world) quoteSourceServes(path, quote string) error {
	path, quote, err := w.expand2(path, quote)
	if err != nil {
		return err
	}
	q, err := w.suite.quoteSource()
	if err != nil {
		return err
	}
	q.set(path, quote)
	return nil
}

// eventuallyEveryInstanceHas polls each instance's greeting page: the bus delivers asynchronously, so a
// scenario waits for it, bounded by the given seconds.
func (w *world) eventuallyEveryInstanceHas(seconds int, name string) error {
	for i := range w.instances {
		if err := w.eventuallyInstanceHas(i, seconds, name); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) eventuallyInstanceHas(i, seconds int, name string) error {
	if _, err := w.instance(i); err != nil {
		return err
	}
	what := fmt.Sprintf("instance %d's greeting page to have the attribute %q", i+1, name)
	return w.until(time.Duration(seconds)*time.Second, what, func() (bool, error) {
		if err := w.openPage(i, "/"); err != nil {
			return false, err
		}
		v, ok, err := w.pageAttribute(name)
		return ok && v != "", err
	})
}

// debugLine is a log line at level DEBUG, as Logback, log/slog's text and JSON handlers and most others
// write the level: a word of its own.
var debugLine = regexp.MustCompile(`(?m)^.*\bDEBUG\b.*$`)

// loggedDebug looks at what the last instance asked logged since the request was sent. A line may reach the
// log after the answer, so a DEBUG line is awaited (5 seconds at most); its absence is checked at once.
func (w *world) loggedDebug(want bool) error {
	i := w.lastInstance
	inst, err := w.instance(i)
	if err != nil {
		return err
	}
	since := func() string { return inst.Log()[min(w.logMarks[i], len(inst.Log())):] }
	if !want {
		if line := debugLine.FindString(since()); line != "" {
			return w.failf("instance %d logged a DEBUG line while answering: %s", i+1, line)
		}
		return nil
	}
	return w.until(5*time.Second, fmt.Sprintf("instance %d to log a DEBUG line", i+1), func() (bool, error) {
		return debugLine.MatchString(since()), nil
	})
}

// environmentHas reads /env in Spring Boot 1.x's shape, {"profiles": [...], "<source>": {"<key>": value}}: a
// property must appear in some source, and a masked value must be masked in every source that has it.
func (w *world) environmentHas(table *godog.Table) error {
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	for _, row := range table.Rows[1:] {
		key, want := row.Cells[0].Value, row.Cells[1].Value
		var seen []string
		for _, src := range sortedKeys(obj) {
			props, ok := obj[src].(map[string]any)
			if !ok {
				continue
			}
			if v, ok := props[key]; ok {
				seen = append(seen, propertyText(v))
			}
		}
		switch {
		case len(seen) == 0:
			return w.failf("/env has no property %q in any property source", key)
		case want == masked && slices.ContainsFunc(seen, func(v string) bool { return v != masked }):
			return w.failf("/env shows %q as %q, want it masked as %q in every source", key, seen, masked)
		case !slices.Contains(seen, want):
			return w.failf("/env shows %q as %q, want %q", key, seen, want)
		}
	}
	return nil
}

// masked is what Spring Boot's /env shows in place of a sensitive value.
const masked = "******"

// propertyText is a property value as the feature writes it: a string as is, anything else as JSON; a value
// in Spring Boot 2's shape, {"value": v}, is unwrapped.
func propertyText(v any) string {
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["value"]; ok {
			v = inner
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return mustJSON(v)
}
