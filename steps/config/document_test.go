package config

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// A flat document is judged as what the answer is: one of another type (the JSON a server gives for a path it
// read as /{app}/{profile}/{label}) is said to be that, with its status and type, not parsed as the document and
// reported as a missing key; an error status is said with its type.
func TestADocumentOfAnotherTypeIsSaidToBeOne(t *testing.T) {
	table := &godog.Table{Rows: []*messages.PickleTableRow{
		{Cells: []*messages.PickleTableCell{{Value: "key"}, {Value: "value"}}},
		{Cells: []*messages.PickleTableCell{{Value: "where"}, {Value: "on a branch"}}},
	}}
	answer := func(status int, contentType, body string) *configServerSteps {
		s := core.NewScenario(core.NewRun(nil))
		s.Last = &core.Exchange{Method: http.MethodGet, URL: "http://cs.test/b/app-default.yml", Status: status,
			Header: http.Header{"Content-Type": {contentType}}, Body: []byte(body)}
		return &configServerSteps{Scenario: s}
	}
	srv := answer(200, "application/json", `{"name":"app","profiles":["default"],"propertySources":[]}`)
	if err := srv.documentHolds("yml", table); err == nil || !strings.Contains(err.Error(), `the answer is "application/json", not a yml document`) {
		t.Errorf("a JSON answer to a .yml request: err = %v", err)
	}
	srv = answer(404, "application/json", `{"status":404}`)
	if err := srv.documentHolds("yml", table); err == nil || !strings.Contains(err.Error(), `status 404 (Content-Type "application/json"), want 200 and a yml document`) {
		t.Errorf("a 404: err = %v", err)
	}
	srv = answer(200, "text/yaml;charset=UTF-8", "where: on a branch\n")
	if err := srv.documentHolds("yml", table); err != nil {
		t.Errorf("the document itself: %v", err)
	}
	srv = answer(200, "application/x-yaml", "where: on a branch\n")
	if err := srv.documentHolds("yaml", table); err != nil {
		t.Errorf("a YAML document of another YAML type: %v", err)
	}
}
