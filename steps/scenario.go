package steps

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/go-resty/resty/v2"
)

// scenario is the core every area's steps share: the suite, the scenario's placeholders and its last HTTP
// exchange. Each area keeps its own state in a type of its own that points at the scenario.
type scenario struct {
	suite *Suite
	// vars are the placeholders a step text may use, written {name}: each scenario gets its own {app},
	// {branch} and {tag}, so scenarios never see each other's data; steps add remembered values.
	vars map[string]string
	// lazy are placeholders computed on first use, such as {quotes}, whose server starts only when a
	// scenario names it.
	lazy map[string]func() (string, error)
	last *exchange
	// exchanges are the scenario's HTTP exchanges, the last maxEvidence of them in order: a failed scenario's
	// evidence.
	exchanges []*exchange
	// http sends the scenario's requests and records each exchange as its evidence (exchange.go).
	http *resty.Client
}

func newScenario(s *Suite) *scenario {
	id := randomID()
	sc := &scenario{suite: s, vars: map[string]string{
		"app":    "tck-" + id,
		"branch": "tck-branch-" + id,
		"tag":    "tck-tag-" + id,
		"group":  "tck-group-" + id,
		"route":  "tck-route-" + id,
		"host":   id + ".tck.test",
	}, lazy: map[string]func() (string, error){}}
	sc.http = newRestyClient(s.http, sc.record)
	sc.vars["refresh_scopes"] = strings.Join(s.refreshScopes(), " ")
	ep := s.endpoints
	for k, v := range map[string]string{"issuer": ep.Issuer, "authorization_endpoint": ep.Authorization, "token_endpoint": ep.Token} {
		if v != "" {
			sc.vars[k] = v
		}
	}
	return sc
}

// id is the random part of the scenario's names ({app} is tck-<id>).
func (s *scenario) id() string { return s.vars["app"][len("tck-"):] }

func randomID() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
