package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The filter steps walk UAA's user filter (GET /Users?filter=..., SCIM's filter of RFC 7644 section 3.4.2.2):
// the scenario makes users of its own, lists them with a filter, and compares the names found among its own
// users (every other user of the target is left out of the comparison, so scenarios running side by side do
// not disturb each other).

// filterSteps list users with a filter at the provisioning API.
type filterSteps struct {
	*core.Scenario
	ids *identitySteps
}

func (fs *filterSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the administrator has created the users:$`, fs.createUsers)
	sc.Step(`^the administrator lists the users with the filter '(.+)'$`, fs.list)
	sc.Step(`^the error description says "([^"]+)"$`, fs.descriptionSays)
	sc.Step(`^each filter finds, among the users whose names start with "([^"]+)":$`, fs.eachFinds)
}

// eachFinds walks a table of filters (filter, found): each is listed in turn and must answer 200 with the
// users named, among the scenario's own. Every row is walked, and the step fails naming each row that did
// not hold, so one scenario (one set of users, made once) walks the whole boundary table.
func (fs *filterSteps) eachFinds(prefix string, table *godog.Table) error {
	if len(table.Rows) < 2 || len(table.Rows[0].Cells) != 2 {
		return fs.Failf("the table needs a header and rows of filter, found")
	}
	var wrong []string
	for _, row := range table.Rows[1:] {
		filter, want := row.Cells[0].Value, row.Cells[1].Value
		if err := fs.list(filter); err != nil {
			return err
		}
		if fs.Last.Status != http.StatusOK {
			wrong = append(wrong, fmt.Sprintf("%s: status %d, want 200", filter, fs.Last.Status))
			continue
		}
		if err := fs.found(prefix, want); err != nil {
			wrong = append(wrong, filter+": "+err.Error())
		}
	}
	if len(wrong) > 0 {
		return fs.Failf("%d of %d filters did not find what they should:\n  %s", len(wrong), len(table.Rows)-1, strings.Join(wrong, "\n  "))
	}
	return nil
}

// createUsers makes the users of a table (user, given name, family name, email; an empty given name leaves
// the user without one). Each must be created: the scenario is blocked otherwise.
func (fs *filterSteps) createUsers(table *godog.Table) error {
	if len(table.Rows) < 2 || len(table.Rows[0].Cells) != 4 {
		return fs.Failf("the table needs a header and rows of user, given name, family name, email")
	}
	for _, row := range table.Rows[1:] {
		var cells []string
		for _, c := range row.Cells {
			cells = append(cells, c.Value)
		}
		vals, err := fs.ExpandAll(cells...)
		if err != nil {
			return err
		}
		name := map[string]string{"familyName": vals[2]}
		if vals[1] != "" {
			name["givenName"] = vals[1]
		}
		rec := map[string]any{
			"userName": vals[0], "password": "pw-" + core.RandomID(), "name": name,
			"emails": []map[string]any{{"value": vals[3], "primary": true}},
		}
		if err := fs.ids.asAdmin(http.MethodPost, "/Users", rec); err != nil {
			return err
		}
		if fs.Last.Status != http.StatusCreated {
			return core.Blockedf("creating the user %s answered %d, want 201", vals[0], fs.Last.Status)
		}
	}
	return nil
}

// list asks for the users a filter finds.
func (fs *filterSteps) list(filter string) error {
	filter, err := fs.Expand(filter)
	if err != nil {
		return err
	}
	return fs.ids.asAdmin(http.MethodGet, "/Users?"+url.Values{"filter": {filter}}.Encode(), nil)
}

// found compares the user names of the answer's resources that start with prefix (compared without case, as
// UAA compares user names) with the expected ones, as sets.
func (fs *filterSteps) found(prefix, want string) error {
	vals, err := fs.ExpandAll(prefix, want)
	if err != nil {
		return err
	}
	obj, err := fs.JSONObject()
	if err != nil {
		return err
	}
	resources, ok := obj["resources"].([]any)
	if !ok {
		resources, ok = obj["Resources"].([]any)
	}
	if !ok {
		return fs.Failf("the answer has no list of resources: %s", core.MustJSON(obj))
	}
	var got []string
	for _, r := range resources {
		m, _ := r.(map[string]any)
		name, _ := m["userName"].(string)
		if strings.HasPrefix(strings.ToLower(name), strings.ToLower(vals[0])) {
			got = append(got, strings.ToLower(name))
		}
	}
	expected := core.Words(strings.ToLower(vals[1]))
	slices.Sort(got)
	slices.Sort(expected)
	if !slices.Equal(got, expected) {
		return fs.Failf("the filter found %q among the scenario's users, want %q", got, expected)
	}
	return nil
}

// descriptionSays checks that the error's description (error_description, or UAA's message) holds a
// sentence: UAA joins the sentences of every rule a value breaks, so a server with more rules than UAA's
// defaults may say more.
func (fs *filterSteps) descriptionSays(sentence string) error {
	sentence, err := fs.Expand(sentence)
	if err != nil {
		return err
	}
	obj, err := fs.JSONObject()
	if err != nil {
		return err
	}
	for _, k := range []string{"error_description", "message"} {
		if d, _ := obj[k].(string); strings.Contains(d, sentence) {
			return nil
		}
	}
	return fs.Failf("the error says %q (message %q), want a description that says %q",
		obj["error_description"], obj["message"], sentence)
}
