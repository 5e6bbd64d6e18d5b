package steps

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// configAppSteps are the instances of the configuration application a scenario started and the credentials
// its requests to them carry.
type configAppSteps struct {
	*scenario
	// instances are stopped when the scenario ends; user and passwords (one per instance, or one for all)
	// are the HTTP Basic credentials sent to them.
	instances []Instance
	user      string
	passwords []string
}

func (w *configAppSteps) register(sc *godog.ScenarioContext) {
	sc.After(w.stopInstances)
	if w.suite.env.ConfigApp != nil {
		w.lazy["quotes"] = func() (string, error) {
			q, err := w.suite.quoteSource()
			if err != nil {
				return "", err
			}
			return q.base, nil
		}
	}
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
		return w.requestApp(0, method, path, requestOptions{})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application without credentials$`, func(method, path string) error {
		return w.requestApp(0, method, path, requestOptions{signIn: anonymous})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to the application with the password "([^"]+)"$`, func(method, path, password string) error {
		return w.requestApp(0, method, path, requestOptions{password: password})
	})
	sc.Step(`^I send "(GET|POST) ([^"]+)" to instance (\d)$`, func(method, path string, n int) error {
		return w.requestApp(n-1, method, path, requestOptions{})
	})
	sc.Step(`^the page has the attribute "([^"]+)"$`, w.pageHas)
	sc.Step(`^the page has no attribute "([^"]+)"$`, w.pageHasNo)
	sc.Step(`^the page attribute "([^"]+)" is "([^"]*)"$`, w.pageAttributeIs)
	sc.Step(`^the answer lists the changed key "([^"]+)"$`, w.answerListsKey)
	sc.Step(`^the answer asks for HTTP Basic credentials$`, w.answerAsksForBasic)
	sc.Step(`^the quote source serves "([^"]+)" with the quote "([^"]+)"$`, w.quoteSourceServes)
	sc.Step(`^within (\d+) seconds the greeting page of every instance has the attribute "([^"]+)"$`, w.eventuallyEveryInstanceHas)
}

func (w *configAppSteps) configApp() (*ConfigApp, error) {
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
func (w *configAppSteps) startInstances(ctx context.Context, app string, o startOptions) error {
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

func (w *configAppSteps) stopInstances(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	for _, inst := range w.instances {
		inst.Stop()
	}
	w.instances = nil
	return ctx, nil
}

func (w *configAppSteps) instance(i int) (Instance, error) {
	if i < 0 || i >= len(w.instances) {
		return nil, fmt.Errorf("instance %d was not started (%d running)", i+1, len(w.instances))
	}
	return w.instances[i], nil
}

var generatedPassword = regexp.MustCompile(`Using default security password: (\S+)`)

// passwordsFromLogs reads the generated password of user "user" from every instance's log: it is written at
// start, but a slow log writer may lag, so the log is read for up to 5 seconds.
func (w *configAppSteps) passwordsFromLogs() error {
	w.user, w.passwords = "user", nil
	for i, inst := range w.instances {
		var m []string
		what := fmt.Sprintf("instance %d's log to have a line %q", i+1, "Using default security password: ...")
		err := w.until(5*time.Second, what, func() (bool, error) {
			m = generatedPassword.FindStringSubmatch(inst.Log())
			return m != nil, nil
		})
		if err != nil {
			return err
		}
		w.passwords = append(w.passwords, m[1])
	}
	return nil
}

func (w *configAppSteps) authenticate(user, password string) error {
	user, password, err := w.expand2(user, password)
	if err != nil {
		return err
	}
	w.user, w.passwords = user, []string{password}
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

func (w *configAppSteps) requestApp(i int, method, path string, o requestOptions) error {
	inst, err := w.instance(i)
	if err != nil {
		return err
	}
	if path, err = w.expand(path); err != nil {
		return err
	}
	r := request{method: method, url: inst.URL() + path, accept: o.accept}
	if o.signIn == asUser {
		password := w.passwords[min(i, len(w.passwords)-1)]
		if o.password != "" {
			if password, err = w.expand(o.password); err != nil {
				return err
			}
		}
		r.user = &credentials{w.user, password}
	}
	return w.send(r)
}

// openPage asks for a page's attributes as JSON, as the application offers them to harnesses.
func (w *configAppSteps) openPage(i int, path string) error {
	if err := w.requestApp(i, http.MethodGet, path, requestOptions{accept: "application/json"}); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return w.failf("the page answered %d, want 200", w.last.status)
	}
	return nil
}

func (w *configAppSteps) pageHasNo(name string) error {
	v, ok, err := w.pageAttribute(name)
	if err != nil {
		return err
	}
	if ok {
		return w.failf("the page has the attribute %q = %q, want none", name, v)
	}
	return nil
}

func (w *configAppSteps) pageAttributeIs(name, want string) error {
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

func (w *configAppSteps) answerListsKey(key string) error {
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

func (w *configAppSteps) answerAsksForBasic() error {
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

func (w *configAppSteps) quoteSourceServes(path, quote string) error {
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

// eventuallyEveryInstanceHas polls the instances' greeting pages: the bus delivers asynchronously, so this is
// the one place a scenario waits, bounded by the spec'd seconds for all instances together.
func (w *configAppSteps) eventuallyEveryInstanceHas(seconds int, name string) error {
	waiting := make([]bool, len(w.instances))
	for i := range waiting {
		waiting[i] = true
	}
	what := fmt.Sprintf("the greeting page of every instance to have %q", name)
	return w.until(time.Duration(seconds)*time.Second, what, func() (bool, error) {
		done := true
		for i := range w.instances {
			if !waiting[i] {
				continue
			}
			if err := w.openPage(i, "/"); err != nil {
				return false, err
			}
			v, ok, err := w.pageAttribute(name)
			if err != nil {
				return false, err
			}
			waiting[i] = !ok || v == ""
			done = done && !waiting[i]
		}
		return done, nil
	})
}
