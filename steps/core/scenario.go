package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/go-resty/resty/v2"

	"github.com/fortune-tck/fortune-tck/target"
)

// Scenario is the core every area's steps share: the run, the scenario's context, its placeholders and its
// last HTTP exchange. Each area keeps its own state in a type of its own that points at the Scenario.
type Scenario struct {
	Run *Run
	// Names are the scenario's own names, which it gives what it creates in the target; the features write
	// them {app}, {branch}, {tag}, {group}, {route} and {host}.
	Names Names
	// Vars are the placeholders a step text may use, written {name}: each scenario gets its own {app},
	// {branch} and {tag}, so scenarios never see each other's data; each area adds the values it remembers
	// under its own names, for the feature files (an area's Go code reads another area's state through the
	// types that area exports, never from here).
	Vars map[string]string
	// Lazy are placeholders computed on first use, such as {quotes}, whose server starts only when a
	// scenario names it.
	Lazy map[string]func() (string, error)
	Last *Exchange
	// exchanges are the scenario's HTTP exchanges, the last maxEvidence of them in order: a failed scenario's
	// evidence.
	exchanges []*Exchange
	// HTTP sends the scenario's requests and records each exchange as its evidence (exchange.go).
	HTTP *resty.Client

	ctx    context.Context
	cancel context.CancelFunc
}

// NewScenario starts a scenario of the run, with fresh names and a context of its own, derived from the run's:
// End ends it.
func NewScenario(r *Run) *Scenario {
	id := RandomID()
	n := Names{ID: id, App: "tck-" + id, Branch: "tck-branch-" + id, Tag: "tck-tag-" + id, Group: "tck-group-" + id,
		Route: "tck-route-" + id, Host: id + ".tck.test"}
	sc := &Scenario{Run: r, Names: n, Vars: map[string]string{
		"app": n.App, "branch": n.Branch, "tag": n.Tag, "group": n.Group, "route": n.Route, "host": n.Host,
	}, Lazy: map[string]func() (string, error){}}
	sc.ctx, sc.cancel = context.WithCancel(r.Context())
	sc.HTTP = NewRestyClient(r.HTTP, sc.Record)
	return sc
}

// Context is the scenario's context: done when the scenario ends or the run is stopped. Every wait of the
// steps ends with it.
func (s *Scenario) Context() context.Context { return s.ctx }

// End ends the scenario's context (an After hook, once what it created is removed).
func (s *Scenario) End() { s.cancel() }

// Services are the target's services; a nil one is not under test.
func (s *Scenario) Services() *target.Services { return s.Run.Services() }

// Names are a scenario's own names: each scenario gets its own, so scenarios never see each other's data.
type Names struct {
	// ID is their random part ({app} is tck-<ID>).
	ID                                   string
	App, Branch, Tag, Group, Route, Host string
}

// ID is the random part of the scenario's names ({app} is tck-<ID>).
func (s *Scenario) ID() string { return s.Names.ID }

// RandomID is a short random hex string, for names and nonces.
func RandomID() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
