package ratelimit

import (
	"context"
	"net/netip"
	"testing"
)

// costRules: a request cost of 2 on one counter, a response cost of 3 on
// another, and a cost from Metadata, which this gateway never has.
const costRules = `        - clientSelectors: [{headers: [{name: x-a, type: Distinct}]}]
          limit: {requests: 5, unit: Minute}
          cost: {request: {from: Number, number: 2}}
        - clientSelectors: [{headers: [{name: x-b, type: Distinct}]}]
          limit: {requests: 5, unit: Minute}
          cost: {response: {from: Number, number: 3}}
        - clientSelectors: [{headers: [{name: x-c, type: Distinct}]}]
          limit: {requests: 1, unit: Minute}
          cost: {request: {from: Metadata, metadata: {namespace: ns, key: k}}}
`

// TestCostOnTheCounters: the request cost is added on the way in (2 + 2
// pass with 3 and 1 left; the third request's 2 is too much), the response
// cost by Done; a cost from Metadata leaves the rule out.
func TestCostOnTheCounters(t *testing.T) {
	rt := NewRoute("r", RulesOf(policyIn(t, "default", "p", costRules)))
	l := New(Options{Now: at1000().Now})
	ctx, ip := context.Background(), netip.MustParseAddr("192.0.2.1")
	for i, want := range []struct {
		o         Outcome
		remaining int64
	}{{Pass, 3}, {Pass, 1}, {Limited, 0}} {
		if d := l.Check(ctx, request("GET", "/", "x-a", "1"), ip, rt); d.Outcome != want.o || d.remaining != want.remaining {
			t.Fatalf("request cost, request %d: %v %d, want %v %d", i+1, d.Outcome, d.remaining, want.o, want.remaining)
		}
	}
	r := request("GET", "/", "x-b", "1")
	if d := l.Check(ctx, r, ip, rt); d.Outcome != Pass || d.remaining != 4 {
		t.Fatalf("response cost, request 1: %v %d", d.Outcome, d.remaining)
	}
	l.Done(ctx, r, ip, rt)
	if d := l.Check(ctx, r, ip, rt); d.Outcome != Pass || d.remaining != 0 {
		t.Fatalf("response cost, request 2: %v %d", d.Outcome, d.remaining)
	}
	for range 3 {
		if d := l.Check(ctx, request("GET", "/", "x-c", "1"), ip, rt); d.Outcome != Pass || d.Applied() {
			t.Fatalf("cost from Metadata: %v %v", d.Outcome, d.Applied())
		}
	}
}

// TestCostAsHitsAddend: a request cost is the descriptor's hits_addend on
// the request's call, a response cost its hits_addend on the call once the
// response is complete (with only the rules that have one); a rule without
// a request cost sends none, and one from Metadata no descriptor at all.
func TestCostAsHitsAddend(t *testing.T) {
	rt := NewRouteOn("default/eg/http", "route", RulesOf(policyIn(t, "default", "p", costRules)))
	r := request("GET", "/", "x-a", "1", "x-b", "1", "x-c", "1")
	ip := netip.MustParseAddr("192.0.2.1")
	req := rt.serviceCalls(r, ip, false)
	if len(req) != 1 || len(req[0].descriptors) != 2 {
		t.Fatalf("request path: %v", req)
	}
	if a, b := req[0].descriptors[0].GetHitsAddend(), req[0].descriptors[1].GetHitsAddend(); a.GetValue() != 2 || b != nil {
		t.Errorf("request hits_addend: %v %v", a, b)
	}
	resp := rt.serviceCalls(r, ip, true)
	if len(resp) != 1 || len(resp[0].descriptors) != 1 || resp[0].descriptors[0].Entries[1].Key != "rule-1-match-0" || resp[0].descriptors[0].GetHitsAddend().GetValue() != 3 {
		t.Errorf("response path: %v", resp)
	}
	if !rt.HasResponseCost() {
		t.Error("HasResponseCost")
	}
}
