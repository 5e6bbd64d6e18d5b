package config

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The outcome steps the boundary tables of the application's feature walk: the exact keys a refresh lists,
// which instances a bus refresh reached, and the ports the destinations name.

// clientVersionKey is the key Spring's configuration client adds for the commit it was served
// (ConfigServicePropertySourceLocator's "configClient" source): a refresh lists it whenever the repository
// moved, for whatever application, so the exact lists of the feature leave it out.
const clientVersionKey = "config.client.version"

// maxInstancePlaceholders is how many {port-N} placeholders the steps offer.
const maxInstancePlaceholders = 9

func (ap *configAppSteps) registerOutcomes(sc *godog.ScenarioContext) {
	ap.registerOutcomesPlaceholders()
	sc.Step(`^an instance of "([^"]+)" is started with the profiles "([^"]+)"$`, func(ctx context.Context, app, profiles string) error {
		return ap.startInstances(ctx, app, startOptions{n: 1, profiles: profiles})
	})
	sc.Step(`^the changed keys are exactly (\[.*\])$`, ap.changedKeysAre)
	sc.Step(`^the greeting page of instance (\d) has the attribute "([^"]+)"$`, func(n int, name string) error {
		return ap.instanceHasNow(n-1, name)
	})
	sc.Step(`^within (\d+) seconds the greeting page has the attribute "([^"]+)" on (no instance|instances? \d(?:(?:, | and )\d)*)$`,
		func(seconds int, name, list string) error { return ap.reachedExactly(seconds, name, list, 0) })
	sc.Step(`^within (\d+) seconds the greeting page has the attribute "([^"]+)" on (no instance|instances? \d(?:(?:, | and )\d)*), and for (\d+) seconds? on no other instance$`,
		func(seconds int, name, list string, quiet int) error {
			return ap.reachedExactly(seconds, name, list, quiet)
		})
}

// registerOutcomesPlaceholders offers {port-1} to {port-9}, computed when a step names them.
func (ap *configAppSteps) registerOutcomesPlaceholders() {
	for n := 1; n <= maxInstancePlaceholders; n++ {
		ap.Lazy[fmt.Sprintf("port-%d", n)] = func() (string, error) { return ap.portOf(n - 1) }
	}
}

// portOf is the port instance i listens on, the element of its service id Spring fills from local.server.port;
// before the instance is started the step that names it is blocked.
func (ap *configAppSteps) portOf(i int) (string, error) {
	if i >= len(ap.instances) {
		return "", core.Blockedf("{port-%d} names instance %d, which was not started (%d running)", i+1, i+1, len(ap.instances))
	}
	u, err := url.Parse(ap.instances[i].URL())
	if err != nil || u.Port() == "" {
		return "", fmt.Errorf("instance %d's address %q has no port", i+1, ap.instances[i].URL())
	}
	return u.Port(), nil
}

// changedKeysAre checks the answer of a refresh: a JSON array of exactly the keys listed, in any order (Spring
// collects them in a hash set), config.client.version aside.
func (ap *configAppSteps) changedKeysAre(want string) error {
	a, err := ap.Answer()
	if err != nil {
		return err
	}
	v, err := a.JSON()
	if err != nil {
		return err
	}
	list, ok := v.([]any)
	if !ok {
		return ap.Failf("the answer is %s, want a JSON array of the keys that changed", core.MustJSON(v))
	}
	wantValue, err := core.DecodeJSON(want)
	if err != nil {
		return fmt.Errorf("the expected keys %s are not a JSON array: %w", want, err)
	}
	wantList, _ := wantValue.([]any)
	got, expected := keyStrings(list), keyStrings(wantList)
	got = slices.DeleteFunc(got, func(k string) bool { return k == clientVersionKey })
	slices.Sort(got)
	slices.Sort(expected)
	if !slices.Equal(got, expected) {
		return ap.Failf("the refresh listed the keys %s, want exactly %s (%s aside)",
			core.MustJSON(list), core.MustJSON(expected), clientVersionKey)
	}
	return nil
}

func keyStrings(list []any) []string {
	out := make([]string, 0, len(list))
	for _, k := range list {
		if s, ok := k.(string); ok {
			out = append(out, s)
		} else {
			out = append(out, core.MustJSON(k))
		}
	}
	return out
}

// instanceHasNow opens instance i's greeting page once: for an instance that must have a value from its start.
func (ap *configAppSteps) instanceHasNow(i int, name string) error {
	if _, err := ap.instance(i); err != nil {
		return err
	}
	v, ok, err := ap.greetingAttribute(i, name)
	if err != nil {
		return err
	}
	if !ok || v == "" {
		return ap.Failf("instance %d's greeting page has no attribute %q", i+1, name)
	}
	return nil
}

// instanceList reads "no instance", "instance 2", "instances 1 and 3" or "instances 1, 2 and 3" as indexes;
// each must be an instance the scenario started.
var instanceNumber = regexp.MustCompile(`\d`)

func (ap *configAppSteps) instanceList(list string) (map[int]bool, error) {
	want := map[int]bool{}
	for _, f := range instanceNumber.FindAllString(list, -1) {
		n, _ := strconv.Atoi(f)
		if _, err := ap.instance(n - 1); err != nil {
			return nil, err
		}
		want[n-1] = true
	}
	return want, nil
}

// reachedExactly waits for the attribute on the greeting page of each listed instance; with quiet > 0 it then
// watches every other instance of the scenario for that long, which must not show it. The watch proves
// something only of instances that could have shown it: the feature's scenarios reach each of them
// afterwards.
func (ap *configAppSteps) reachedExactly(seconds int, name, list string, quiet int) error {
	want, err := ap.instanceList(list)
	if err != nil {
		return err
	}
	if len(want) == 0 && quiet == 0 {
		return fmt.Errorf("%q waits for no instance: say for how long no other instance may show %q", list, name)
	}
	for _, i := range slices.Sorted(maps.Keys(want)) {
		if err := ap.eventuallyInstanceHas(i, seconds, name); err != nil {
			return err
		}
	}
	if quiet == 0 {
		return nil
	}
	var others []string
	for i := range ap.instances {
		if !want[i] {
			others = append(others, strconv.Itoa(i+1))
		}
	}
	what := fmt.Sprintf("an instance the refresh was not addressed to (of %s) has the attribute %q", strings.Join(others, ", "), name)
	return ap.Never(time.Duration(quiet)*time.Second, what, func() (string, error) {
		for i := range ap.instances {
			if want[i] {
				continue
			}
			v, ok, err := ap.greetingAttribute(i, name)
			if err != nil || ok {
				return fmt.Sprintf("instance %d shows %q", i+1, v), err
			}
		}
		return "", nil
	})
}
