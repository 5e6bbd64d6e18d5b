// Package htmlreport renders what a run of the suite wrote (conformance-report.yaml and cucumber.json) as one
// self-contained HTML page that people look at: each profile's result with its counts drawn, every scenario with
// its outcome and why, its steps and the HTTP exchanges and screenshots it left as evidence, failed and blocked
// scenarios first, filters, an anchor per scenario named by its stable ID, and the spec sections each scenario
// earns. It also renders the features as a browsable spec (RenderDocs) and the interop matrix (RenderMatrix).
//
// Everything on the page comes from the target, which is untrusted: every string goes through html/template's
// escaping (nothing is marked template.HTML), invalid UTF-8 is replaced, huge bodies are cut with a note of their
// size, and images are shown only as data: URLs of bytes that sniff as the image type they claim. The page
// loads nothing: its style, its pictures (inline SVG) and its little script are in it.
package htmlreport

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// ExchangesMediaType is the media type of the attachment that holds a scenario's HTTP exchanges: a JSON array of
// {"method","url","requestHeaders":{name:[values]},"requestBody","status","responseHeaders","responseBody",
// "responseBodySize","sent","received"}.
const ExchangesMediaType = "application/vnd.fortune-tck.exchanges+json"

// Limits of what one item brings onto the page; what is longer is cut, with a note of its size.
const (
	MaxBody  = 32 << 10 // a request or response body
	MaxText  = 16 << 10 // an error message or a text attachment
	MaxImage = 4 << 20  // a screenshot
	// MaxBodies bounds the bodies of all exchanges on a page; past it, each body is cut at MaxBodyOver, so
	// that a run with many failures still gives a page a browser opens.
	MaxBodies   = 8 << 20
	MaxBodyOver = 1 << 10
)

// The outcomes a page shows: the registry's, and one for a scenario that neither file accounts for.
const (
	Passed       = features.Passed
	Failed       = features.Failed
	Blocked      = features.Blocked
	Skipped      = features.Skipped
	NotSupported = features.Unsupported
	NotUnderTest = features.NotUnderTest
	Unknown      = features.Outcome("unknown")
)

// Outcomes lists the outcomes in the order the page counts and filters them.
var Outcomes = []features.Outcome{Failed, Blocked, Passed, Skipped, NotSupported, NotUnderTest, Unknown}

// OutcomeLabel is how the page names an outcome.
func OutcomeLabel(o features.Outcome) string {
	switch o {
	case NotSupported:
		return "not supported"
	case Unknown:
		return "no outcome"
	}
	return string(o)
}

// outcomeClass is an outcome as a CSS class and a data-outcome value (no spaces).
func outcomeClass(o features.Outcome) string {
	return strings.ReplaceAll(OutcomeLabel(o), " ", "-")
}

// Input is everything the report page shows, built by FromFiles (or Build) from a run's files.
type Input struct {
	Report report.ConformanceReport
	// Verdict is the worst result of any profile.
	Verdict   report.Verdict
	Totals    Counts
	Profiles  []Profile
	Scenarios []Scenario // failed first, then blocked, then the rest in the order of the features
	// AreasNotUnderTest are the areas of the features that have no profile in the report: the target declares
	// none of their services.
	AreasNotUnderTest []string
	// Coverage is every spec section with the scenarios that earn it; empty without sections.
	Coverage []Section
	// Expectations is the run judged against an expectations file; nil without one.
	Expectations *Expectations
	// Sources are the files the page was made from; Notes what did not agree between them.
	Sources []string
	Notes   []string
}

// Counts counts scenarios by outcome.
type Counts map[features.Outcome]int

// Total is the number of scenarios counted.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Profile is one profile of the report.
type Profile struct {
	Name, Title, Summary, Reason string
	UntestedServices             []string
	Core                         Result
	Extended                     *Result
	Supported, Failed            []Feature
	Unverified, Unsupported      []Feature
	// NotUnderTest counts the profile's scenarios that need a service the target does not declare.
	NotUnderTest int
}

// Result is a profile's core or extended result: the report's verdict and statistics, with the scenarios the
// target does not support counted from the features.
type Result struct {
	Verdict report.Verdict
	Counts  Counts
}

// Feature is a capability (or a fixture) named in a profile, with what it means.
type Feature struct{ Name, Doc string }

// Scenario is one scenario with its outcome and evidence.
type Scenario struct {
	ID, Name, Feature, URI string
	Line                   int
	Area, Profile          string
	Extended               bool // it needs an optional capability
	Specs, Capabilities    []string
	Tags                   []string
	Outcome                features.Outcome
	// Reason says why: the failure message, the blocked step's cause, what the target lacks.
	Reason string
	// Expectation is what the expectations file makes of it (ExpectedStillFailing, UnexpectedOutcome,
	// ExpectedButPassed), ExpectationWhy the entry or its absence; empty without one.
	Expectation, ExpectationWhy string
	Duration                    time.Duration
	Steps                       []Step
	Exchanges                   []Exchange
	Texts                       []Text
	Images                      []Image
	// Omitted describes attachments the page does not show.
	Omitted []string
}

// Step is a step as the run reported it.
type Step struct {
	Keyword, Text, Status, Error string
	DocString                    string
	Rows                         [][]string
	Duration                     time.Duration
}

// Exchange is one HTTP request and its answer.
type Exchange struct {
	Method, URL                     string
	RequestHeaders, ResponseHeaders []Header
	RequestBody, ResponseBody       Body
	Status                          int
	Sent, Received                  string
	Elapsed                         time.Duration
}

// Header is one header line.
type Header struct{ Name, Value string }

// Body is a body as text, cut at MaxBody; Note says so, with its size, when it was cut or not text.
type Body struct {
	Text string
	Size int
	Note string
}

// Text is a text attachment.
type Text struct{ Name, Text string }

// Image is a picture attachment; the page shows it only when its bytes are of the type it claims.
type Image struct {
	Name, MediaType string
	Data            []byte
}

// Section is a spec section with the scenarios that earn it.
type Section struct {
	ID, Area, Summary string
	NotShown          bool
	Scenarios         []ScenarioRef
}

// ScenarioRef names a scenario and its outcome.
type ScenarioRef struct {
	ID, Name string
	Outcome  features.Outcome
}

// FromFiles reads a run's conformance report and cucumber JSON and builds the page's input. cat is the catalog
// of the features the run ran (for the scenarios the report does not list one by one), sections the spec's
// index (nil for no coverage view). A file that is not what it should be is an error that names it; an empty
// cucumberJSON reads none (the page then has no steps or evidence).
func FromFiles(reportYAML, cucumberJSON string, cat *catalog.Catalog, sections []coverage.Section) (Input, error) {
	rep, err := ReadReport(reportYAML)
	if err != nil {
		return Input{}, err
	}
	var cuke []cukeFeature
	if cucumberJSON != "" {
		data, err := os.ReadFile(cucumberJSON)
		if err != nil {
			return Input{}, err
		}
		if cuke, err = parseCucumber(cucumberJSON, data); err != nil {
			return Input{}, err
		}
	}
	in, err := build(rep, cuke, cucumberJSON, cat, sections)
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", reportYAML, err)
	}
	in.Sources = []string{reportYAML}
	if cucumberJSON != "" {
		in.Sources = append(in.Sources, cucumberJSON)
	}
	return in, nil
}

// Build is FromFiles for a report in memory and the bytes of a cucumber JSON report (nil for none).
func Build(rep report.ConformanceReport, cucumberJSON []byte, cat *catalog.Catalog, sections []coverage.Section) (Input, error) {
	var cuke []cukeFeature
	if cucumberJSON != nil {
		var err error
		if cuke, err = parseCucumber("cucumber.json", cucumberJSON); err != nil {
			return Input{}, err
		}
	}
	return build(rep, cuke, "cucumber.json", cat, sections)
}

// ReadReport reads a conformance report; a file of another kind, or one without profiles, is an error naming it.
func ReadReport(path string) (report.ConformanceReport, error) {
	var rep report.ConformanceReport
	data, err := os.ReadFile(path)
	if err != nil {
		return rep, err
	}
	if err := yaml.Unmarshal(data, &rep); err != nil {
		return rep, fmt.Errorf("%s: not a conformance report: %v", path, firstLine(err.Error()))
	}
	if rep.Kind != "ConformanceReport" {
		return rep, fmt.Errorf("%s: not a conformance report of tck (kind %q, want ConformanceReport)", path, rep.Kind)
	}
	if len(rep.Profiles) == 0 {
		return rep, fmt.Errorf("%s: the report has no profiles, so no scenarios: nothing to show", path)
	}
	return rep, nil
}

// element is a cucumber scenario with its feature.
type element struct {
	feature *cukeFeature
	el      *cukeElement
	used    bool
}

func build(rep report.ConformanceReport, cuke []cukeFeature, cukeName string, cat *catalog.Catalog, sections []coverage.Section) (Input, error) {
	if cat == nil {
		cat = &catalog.Catalog{}
	}
	in := Input{Report: rep, Totals: Counts{}}
	// Index the cucumber scenarios by ID (the stable ID, once the harness writes it) and by file and line.
	byID, byLine := map[string]*element{}, map[string]*element{}
	elements := 0
	for i := range cuke {
		f := &cuke[i]
		for j := range f.Elements {
			el := &f.Elements[j]
			if el.Type == "background" {
				continue
			}
			elements++
			e := &element{feature: f, el: el}
			if el.ID != "" {
				byID[el.ID] = e
			}
			byLine[fmt.Sprintf("%s:%d", f.URI, el.Line)] = e
		}
	}
	profiles := map[string]*report.Profile{}
	for i := range rep.Profiles {
		profiles[string(rep.Profiles[i].Name)] = &rep.Profiles[i]
	}
	failed, blocked, skipped := map[string]bool{}, map[string]string{}, map[string]bool{}
	var listed []string // every ID the report names, in its order
	evidence := 0
	for _, p := range rep.Profiles {
		results := []report.Result{p.Core}
		if p.Extended != nil {
			results = append(results, p.Extended.Result)
		}
		for _, r := range results {
			st := r.Statistics
			evidence += st.Passed + st.Failed + st.Blocked + st.Skipped
			for _, id := range r.FailedTests {
				failed[id] = true
				listed = append(listed, id)
			}
			for _, b := range r.BlockedTests {
				blocked[b.Name] = b.Cause
				listed = append(listed, b.Name)
			}
			for _, id := range r.SkippedTests {
				skipped[id] = true
				listed = append(listed, id)
			}
		}
	}

	inCatalog := map[string]bool{}
	matched := 0
	var scenarios []Scenario
	for _, cs := range cat.Scenarios {
		id := cs.ID()
		inCatalog[id] = true
		e := byID[id]
		if e == nil {
			e = byLine[cs.Location()]
		}
		if e != nil {
			e.used = true
			matched++
		}
		s := Scenario{ID: id, Name: cs.Name, Feature: cs.Feature, URI: cs.URI, Line: cs.Line,
			Area: string(cs.Area), Profile: string(cs.Profile), Tags: cs.Tags,
			Specs: cs.TagsWithPrefix(coverage.SpecTag), Capabilities: cs.TagsWithPrefix(features.CapabilityTag)}
		s.Extended = len(s.Capabilities) > 0
		if e != nil {
			fillFromCucumber(&s, e.el)
		}
		s.Outcome, s.Reason = outcomeOf(cs, e, profiles[s.Profile], failed[id], blocked, skipped[id])
		if s.Outcome == Failed && s.Reason == "" {
			s.Reason = "failed (cucumber.json has no message for it)"
		}
		scenarios = append(scenarios, clean(s))
	}
	// Scenarios the report names that the features do not have (the run used other features).
	for _, id := range listed {
		if inCatalog[id] {
			continue
		}
		inCatalog[id] = true
		s := Scenario{ID: id, Name: id}
		if e := byID[id]; e != nil {
			e.used = true
			matched++
			s.Name, s.Feature, s.URI, s.Line = e.el.Name, e.feature.Name, e.feature.URI, e.el.Line
			fillFromCucumber(&s, e.el)
		}
		s.Outcome = Skipped
		switch {
		case failed[id]:
			s.Outcome = Failed
			s.Reason = cmp.Or(failureMessage(s.Steps), "failed")
		case blocked[id] != "":
			s.Outcome, s.Reason = Blocked, blocked[id]
		}
		in.Notes = append(in.Notes, fmt.Sprintf("%s is in the report but not in the features this page was made with", id))
		scenarios = append(scenarios, clean(s))
	}
	if elements > 0 && matched == 0 {
		return in, fmt.Errorf("%s: none of its %d scenarios is a scenario of this suite's features (a cucumber report of another suite, or of other features?)", cukeName, elements)
	}
	if evidence == 0 && matched == 0 {
		return in, fmt.Errorf("the report holds no scenario (every profile counts 0) and %s none either: nothing to show", cmp.Or(cukeName, "there is no cucumber report"))
	}
	if n := elements - matched; n > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("%d scenarios of %s are not in the features this page was made with", n, cukeName))
	}

	// Failed first, then blocked, then the rest in the order of the features.
	rank := func(o features.Outcome) int {
		switch o {
		case Failed:
			return 0
		case Blocked:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(scenarios, func(a, b Scenario) int { return rank(a.Outcome) - rank(b.Outcome) })
	if budget(scenarios) {
		in.Notes = append(in.Notes, fmt.Sprintf("the exchanges' bodies pass %d MiB in all: past that, each is cut at %d bytes", MaxBodies>>20, MaxBodyOver))
	}
	in.Scenarios = scenarios
	for _, s := range scenarios {
		in.Totals[s.Outcome]++
	}
	withExpectations(&in, rep.Expectations)
	in.Profiles = profileViews(rep, scenarios, &in)
	in.Verdict = overall(rep)
	for _, a := range cat.Areas(features.Areas) {
		if !slices.ContainsFunc(rep.Profiles, func(p report.Profile) bool {
			pr, ok := features.LookupProfile(p.Name)
			return ok && pr.Area == a
		}) {
			in.AreasNotUnderTest = append(in.AreasNotUnderTest, string(a))
		}
	}
	if sections != nil {
		cov, err := coverage.Compute(sections, cat)
		if err != nil {
			in.Notes = append(in.Notes, "no spec coverage: "+firstLine(err.Error()))
		} else {
			in.Coverage = sectionViews(cov, scenarios)
		}
	}
	for i := range in.Notes {
		in.Notes[i] = cleanText(in.Notes[i], MaxText)
	}
	return in, nil
}
