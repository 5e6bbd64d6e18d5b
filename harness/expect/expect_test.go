package expect

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// A small suite: three scenarios of the oauth profile (one needs auth.revocation) and two of check-token.
var testFeatures = fstest.MapFS{
	"auth/tokens.feature": {Data: []byte(`Feature: Tokens

  Scenario: A token is issued
    Then it works

  Scenario: A refresh gets a new token
    Then it works

  @capability-auth.revocation
  Scenario: A revoked token is inactive
    Then it works
`)},
	"auth/check.feature": {Data: []byte(`@profile-check-token
Feature: Check

  Scenario: A token is checked
    Then it works

  Scenario: An expired token is refused
    Then it works
`)},
}

const (
	issued  = "auth/tokens/a-token-is-issued"
	refresh = "auth/tokens/a-refresh-gets-a-new-token"
	revoked = "auth/tokens/a-revoked-token-is-inactive"
	checked = "auth/check/a-token-is-checked"
	expired = "auth/check/an-expired-token-is-refused"
)

func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(testFeatures)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func parse(t *testing.T, text string) *File {
	t.Helper()
	f, err := Parse("x.yaml", []byte(text), testCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Every mistake of a file is reported, in the order of its lines, each with its line: an ID the suite does not
// have (with the closest one), one named twice, an outcome that is not the suite's or not one its kind can
// have, an entry without why, a field the format does not have.
func TestABadFileIsEveryMistakeWithItsLine(t *testing.T) {
	text := `expected:
  - id: auth/tokens/a-token-is-isued
    outcome: failed
    why: typo
  - ids: [auth.revocation, auth.revocation]
    outcome: not-supported
    why: twice
  - id: profile:check-token
    outcome: sideways
    why: no such outcome
  - id: fixture fixtures.users.outsider
    outcome: failed
    why: a fixture is never failed
  - id: auth/tokens/a-token-is-issued
    outcome: passed
  - id: profile:oauth
    outcome: blocked
    why: ok
    owner: someone
`
	_, err := Parse("x.yaml", []byte(text), testCatalog(t))
	if err == nil {
		t.Fatal("a bad file was accepted")
	}
	want := []string{
		`x.yaml:2: "auth/tokens/a-token-is-isued" is no stable ID of the suite: did you mean auth/tokens/a-token-is-issued?`,
		`x.yaml:5: auth.revocation is named twice (first on line 5)`,
		`x.yaml:9: outcome "sideways" is not one the suite gives a difference: give failed, blocked or not-supported`,
		`x.yaml:11: fixture fixtures.users.outsider is a fixture, which is never failed; give not-supported`,
		`x.yaml:14: the entry has no why`,
		`x.yaml:15: outcome "passed" is not one the suite gives a difference`,
		`x.yaml:19: unknown field "owner" of an entry`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d messages, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("message %d:\n%s\nwant it to start with\n%s", i, lines[i], w)
		}
	}
	for _, bad := range []string{"", "expected: 3", "[1, 2]", "expect:\n  - id: profile:oauth\n"} {
		if _, err := Parse("x.yaml", []byte(bad), testCatalog(t)); err == nil || !strings.HasPrefix(err.Error(), "x.yaml") {
			t.Errorf("%q: err = %v, want one naming the file", bad, err)
		}
	}
	if f := parse(t, "expected: []\n"); len(f.Entries) != 0 {
		t.Errorf("an empty list: %+v", f)
	}
}

func run(outcomes map[string]features.Outcome, rep report.ConformanceReport) Run {
	return Run{Report: rep, Outcomes: outcomes, Reasons: map[string]string{refresh: "status 500, want 200"}}
}

// A failed or blocked scenario is expected by its own entry, by one of its capability or by its profile, with
// that outcome; any other is unexpected, and one whose entry names another outcome says which.
func TestJudgeTellsExpectedFromUnexpected(t *testing.T) {
	cat := testCatalog(t)
	f := parse(t, `expected:
  - id: profile:check-token
    outcome: blocked
    why: no check_token
  - id: auth.revocation
    outcome: failed
    why: revocation is late
  - id: auth/tokens/a-token-is-issued
    outcome: failed
    why: known
`)
	outcomes := map[string]features.Outcome{
		issued: features.Blocked, refresh: features.Failed, revoked: features.Failed,
		checked: features.Blocked, expired: features.Blocked,
	}
	j := Judge(f, cat, run(outcomes, report.ConformanceReport{}))
	var expected []string
	for _, x := range j.Expected {
		expected = append(expected, x.Name+" by "+x.By)
	}
	slices.Sort(expected)
	want := []string{checked + " by profile:check-token", expired + " by profile:check-token", revoked + " by auth.revocation"}
	if !slices.Equal(expected, want) {
		t.Errorf("expected %v\nwant %v", expected, want)
	}
	if len(j.Unexpected) != 2 {
		t.Fatalf("unexpected %+v, want the refresh (no entry) and the token issued (blocked, expected failed)", j.Unexpected)
	}
	for _, u := range j.Unexpected {
		switch u.Name {
		case refresh:
			if u.Outcome != features.Failed || u.Reason != "status 500, want 200" || u.Expected != "" {
				t.Errorf("refresh: %+v", u)
			}
		case issued:
			if u.Outcome != features.Blocked || u.Expected != features.Failed {
				t.Errorf("issued: %+v", u)
			}
		default:
			t.Errorf("unexpected %+v", u)
		}
	}
	if len(j.DidNotHappen) != 0 || j.Result != report.ExpectationsNotMet || j.Met() {
		t.Errorf("an entry contradicted by an unexpected outcome is reported once, as that: %+v", j)
	}
}

// An entry the run contradicts did not happen (the file is stale: the run fails); one about scenarios that did
// not run is not judged; a capability expected not supported is checked against the report.
func TestAnEntryThatDidNotHappenFailsTheRun(t *testing.T) {
	cat := testCatalog(t)
	f := parse(t, `expected:
  - id: auth/tokens/a-refresh-gets-a-new-token
    outcome: failed
    why: was failing
  - id: profile:check-token
    outcome: blocked
    why: no check_token
  - id: auth.revocation
    outcome: not-supported
    why: no revocation
`)
	outcomes := map[string]features.Outcome{issued: features.Passed, refresh: features.Passed, revoked: features.Unsupported}
	rep := report.ConformanceReport{Profiles: []report.Profile{{Name: "oauth", Extended: &report.Extended{UnsupportedFeatures: []string{"auth.revocation"}}}}}
	j := Judge(f, cat, run(outcomes, rep))
	if len(j.DidNotHappen) != 1 || j.DidNotHappen[0].ID != refresh || j.DidNotHappen[0].Actual != "passed" || j.DidNotHappen[0].Line != 2 {
		t.Errorf("did not happen: %+v, want the refresh, passed, line 2", j.DidNotHappen)
	}
	if !slices.Equal(j.NotJudged, []string{"profile:check-token"}) {
		t.Errorf("not judged %v, want the profile whose scenarios did not run", j.NotJudged)
	}
	if j.Met() || j.Result != report.ExpectationsNotMet {
		t.Errorf("a stale entry passes: %+v", j)
	}

	// The capability declared and its scenario passing: the entry did not happen either.
	outcomes[revoked] = features.Passed
	j = Judge(f, cat, run(outcomes, report.ConformanceReport{Profiles: []report.Profile{{Name: "oauth"}}}))
	if len(j.DidNotHappen) != 2 || j.DidNotHappen[1].ID != "auth.revocation" || !strings.Contains(j.DidNotHappen[1].Actual, "declared") {
		t.Errorf("did not happen: %+v", j.DidNotHappen)
	}

	// Nothing failed, every entry happened: met.
	f = parse(t, "expected:\n  - id: auth.revocation\n    outcome: not-supported\n    why: none\n")
	outcomes[revoked] = features.Unsupported
	if j := Judge(f, cat, run(outcomes, rep)); !j.Met() || j.Result != report.ExpectationsMet {
		t.Errorf("not met: %+v", j)
	}
}

// tck expect --from writes what the run showed, every entry with the run's own reason, in a file that loads and
// that the same run meets.
func TestAStartingFileFromARunIsMetByThatRun(t *testing.T) {
	cat := testCatalog(t)
	outcomes := map[string]features.Outcome{issued: features.Passed, refresh: features.Failed, revoked: features.Unsupported,
		checked: features.Blocked, expired: features.Blocked}
	rep := report.ConformanceReport{Profiles: []report.Profile{
		{Name: "oauth", Extended: &report.Extended{UnsupportedFeatures: []string{"auth.revocation"}}},
		{Name: "check-token", Reason: "no check_token endpoint: 404", Core: report.Result{Statistics: report.Statistics{Blocked: 2}}},
	}}
	r := run(outcomes, rep)
	r.Reasons[refresh] = "status 500, want 200\n  GET /token -> 500"
	var b bytes.Buffer
	if err := Write(&b, From(r, cat)); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, w := range []string{"# Known differences", "id: profile:check-token\n    outcome: blocked\n    why: 'no check_token endpoint: 404'",
		"id: " + refresh + "\n    outcome: failed\n    why: status 500, want 200 GET /token -> 500",
		"id: auth.revocation\n    outcome: not-supported\n    why: 'the target does not declare it: RFC 7009"} {
		if !strings.Contains(text, w) {
			t.Errorf("the file lacks %q:\n%s", w, text)
		}
	}
	f, err := Parse("from.yaml", b.Bytes(), cat)
	if err != nil {
		t.Fatalf("the written file does not load: %v\n%s", err, text)
	}
	if j := Judge(f, cat, r); !j.Met() || len(j.Expected) != 3 {
		t.Errorf("the run does not meet its own file: %+v", j)
	}
	unexplained, stale := Explain(f, cat, r)
	if len(unexplained)+len(stale) > 0 {
		t.Errorf("explain: %v %v", unexplained, stale)
	}
}

func TestIDsListsEveryKind(t *testing.T) {
	ids := IDs(testCatalog(t))
	for _, w := range []string{"profile:check-token", "auth.revocation", "fixture fixtures.users.outsider", revoked} {
		if !slices.Contains(ids, w) {
			t.Errorf("IDs lacks %s", w)
		}
	}
	if ids[0] != "profile:"+string(features.Profiles[0].Name) && !strings.HasPrefix(ids[0], ProfilePrefix) {
		t.Errorf("profiles first: %v", ids[:3])
	}
}
