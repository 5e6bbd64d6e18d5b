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
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	Reason    string
	Duration  time.Duration
	Steps     []Step
	Exchanges []Exchange
	Texts     []Text
	Images    []Image
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

// outcomeOf tells a scenario's outcome and why, from the report's lists, its cucumber result and what the
// report says the target lacks.
func outcomeOf(cs catalog.Scenario, e *element, p *report.Profile, failed bool, blocked map[string]string, skipped bool) (features.Outcome, string) {
	id := cs.ID()
	var steps []cukeStep
	if e != nil {
		steps = e.el.Steps
	}
	switch cause, isBlocked := blocked[id]; {
	case failed:
		return Failed, cukeFailure(steps)
	case isBlocked:
		return Blocked, cmp.Or(cause, "a precondition failed")
	case skipped:
		return Skipped, "left out by --tags"
	}
	if p == nil {
		area := cs.Area
		return NotUnderTest, fmt.Sprintf("the target declares no %s service, so the %s area is not under test", area.Primary(), area)
	}
	for _, svc := range cs.TagsWithPrefix(features.ServiceTag) {
		if slices.Contains(p.UntestedServices, svc) {
			return NotUnderTest, fmt.Sprintf("it needs the %s service, which the target does not declare", svc)
		}
	}
	if e != nil && ran(steps) && passedAll(steps) {
		return Passed, ""
	}
	var unsupported []string
	if p.Extended != nil {
		unsupported = p.Extended.UnsupportedFeatures
	}
	var lacks []string
	for _, r := range requirements(cs) {
		if slices.Contains(unsupported, r) {
			lacks = append(lacks, r)
		}
	}
	if len(lacks) > 0 {
		return NotSupported, "it needs " + strings.Join(lacks, ", ") + ", which the target does not declare"
	}
	if e != nil && ran(steps) {
		if msg := cukeFailure(steps); msg != "" {
			return Failed, msg + "\n(cucumber.json says this step failed; the conformance report does not list the scenario)"
		}
	}
	if e != nil && !ran(steps) {
		return NotSupported, "not run: the target lacks something it needs (the report does not say what)"
	}
	return Unknown, "neither the conformance report nor cucumber.json accounts for this scenario"
}

// requirements are what a scenario may need beyond its area's service, as the report's unsupportedFeatures
// name them: capabilities (its own and its profile's), fixtures ("fixture fixtures.users.outsider"), and fresh
// users for a scenario that must see a consent page.
func requirements(cs catalog.Scenario) []string {
	out := cs.TagsWithPrefix(features.CapabilityTag)
	if p, ok := features.LookupProfile(cs.Profile); ok && p.Capability != "" {
		out = append(out, string(p.Capability))
	}
	for _, f := range cs.TagsWithPrefix(features.FixtureTag) {
		out = append(out, report.Requirement{Kind: report.NeedsFixture, Name: features.Fixture(f).Field()}.Feature())
	}
	if cs.HasTag(features.FreshConsentTag) {
		out = append(out, string(features.CapAuthProvisioning))
	}
	return out
}

func ran(steps []cukeStep) bool {
	return slices.ContainsFunc(steps, func(s cukeStep) bool { return s.Result.Status != "skipped" && s.Result.Status != "" })
}

func passedAll(steps []cukeStep) bool {
	return len(steps) > 0 && !slices.ContainsFunc(steps, func(s cukeStep) bool { return s.Result.Status != "passed" })
}

// cukeFailure is the error of the first failed step, else of the first step with an error.
func cukeFailure(steps []cukeStep) string {
	for _, s := range steps {
		if s.Result.Status == "failed" && s.Result.Error != "" {
			return s.Result.Error
		}
	}
	for _, s := range steps {
		if s.Result.Error != "" {
			return s.Result.Error
		}
	}
	return ""
}

func failureMessage(steps []Step) string {
	for _, s := range steps {
		if s.Error != "" {
			return s.Error
		}
	}
	return ""
}

// fillFromCucumber takes a scenario's steps, duration and attachments from its cucumber element.
func fillFromCucumber(s *Scenario, el *cukeElement) {
	var total int64
	for _, h := range el.Before {
		total += h.Result.Duration
	}
	for _, h := range el.After {
		total += h.Result.Duration
	}
	for _, st := range el.Steps {
		total += st.Result.Duration
		step := Step{Keyword: strings.TrimSpace(st.Keyword), Text: st.Name, Status: st.Result.Status,
			Error: st.Result.Error, Duration: time.Duration(st.Result.Duration)}
		if st.DocString != nil {
			step.DocString = st.DocString.Value
		}
		for _, r := range st.Rows {
			step.Rows = append(step.Rows, r.Cells)
		}
		s.Steps = append(s.Steps, step)
	}
	s.Duration = time.Duration(total)
	for _, em := range el.embeddings() {
		addAttachment(s, em)
	}
}

// imageTypes are the pictures the page shows inline.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

func addAttachment(s *Scenario, em cukeEmbedding) {
	mt, data := em.mediaType(), em.data()
	name := cmp.Or(em.Name, mt)
	switch {
	case mt == ExchangesMediaType:
		xs, err := parseExchanges(data)
		if err != nil {
			s.Texts = append(s.Texts, Text{Name: name + " (unreadable: " + err.Error() + ")", Text: string(data)})
			return
		}
		s.Exchanges = append(s.Exchanges, xs...)
	case slices.Contains(imageTypes, mt):
		if len(data) > MaxImage {
			s.Omitted = append(s.Omitted, fmt.Sprintf("%s (%s, %d bytes: larger than %d)", name, mt, len(data), MaxImage))
			return
		}
		s.Images = append(s.Images, Image{Name: name, MediaType: mt, Data: data})
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "":
		s.Texts = append(s.Texts, Text{Name: name, Text: string(data)})
	default:
		s.Omitted = append(s.Omitted, fmt.Sprintf("%s (%s, %d bytes)", name, mt, len(data)))
	}
}

// parseExchanges reads the exchanges attachment, leniently: a field of an unexpected type is shown as the JSON
// it is.
func parseExchanges(data []byte) ([]Exchange, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, err
	}
	var out []Exchange
	for _, it := range items {
		x := Exchange{Method: jsonText(it["method"]), URL: jsonText(it["url"]), Status: int(jsonInt(it["status"])),
			Sent: jsonText(it["sent"]), Received: jsonText(it["received"]),
			RequestHeaders: jsonHeaders(it["requestHeaders"]), ResponseHeaders: jsonHeaders(it["responseHeaders"])}
		x.RequestBody = body(jsonText(it["requestBody"]), jsonInt(it["requestBodySize"]))
		x.ResponseBody = body(jsonText(it["responseBody"]), jsonInt(it["responseBodySize"]))
		sent, err1 := time.Parse(time.RFC3339Nano, x.Sent)
		recv, err2 := time.Parse(time.RFC3339Nano, x.Received)
		if err1 == nil && err2 == nil && !recv.Before(sent) {
			x.Elapsed = recv.Sub(sent)
		}
		out = append(out, x)
	}
	return out, nil
}

// budget cuts the bodies past the first MaxBodies bytes of the page's bodies to MaxBodyOver, and tells whether
// it cut any.
func budget(scenarios []Scenario) bool {
	total, cut := 0, false
	for i := range scenarios {
		for j := range scenarios[i].Exchanges {
			x := &scenarios[i].Exchanges[j]
			for _, b := range []*Body{&x.RequestBody, &x.ResponseBody} {
				if total+len(b.Text) > MaxBodies && len(b.Text) > MaxBodyOver {
					b.Text = cutUTF8(b.Text, MaxBodyOver)
					b.Note = fmt.Sprintf("cut: the first %d of %d bytes (the page holds %d MiB of bodies at most)", len(b.Text), b.Size, MaxBodies>>20)
					cut = true
				}
				total += len(b.Text)
			}
		}
	}
	return cut
}

// body is a body cut at MaxBody, with a note of its size when it was cut; size is the size the writer
// reports, when it cut the body itself.
func body(text string, size int64) Body {
	b := Body{Text: text, Size: max(len(text), int(size))}
	var notes []string
	if !utf8.ValidString(text) {
		notes = append(notes, "not valid UTF-8: shown with the invalid bytes replaced")
	}
	if len(b.Text) > MaxBody {
		b.Text = cutUTF8(b.Text, MaxBody)
	}
	if b.Size > len(b.Text) {
		notes = append(notes, fmt.Sprintf("cut: the first %d of %d bytes", len(b.Text), b.Size))
	}
	b.Note = strings.Join(notes, "; ")
	return b
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return string(raw)
}

func jsonInt(raw json.RawMessage) int64 {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		return 0
	}
	return i
}

// jsonHeaders reads {name: [values]} (or {name: value}) as header lines, sorted by name.
func jsonHeaders(raw json.RawMessage) []Header {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		if len(raw) > 0 && string(raw) != "null" {
			return []Header{{Name: "(headers)", Value: string(raw)}}
		}
		return nil
	}
	var out []Header
	for name, v := range m {
		var vs []string
		if err := json.Unmarshal(v, &vs); err != nil {
			vs = []string{jsonText(v)}
		}
		for _, val := range vs {
			out = append(out, Header{Name: name, Value: val})
		}
	}
	slices.SortStableFunc(out, func(a, b Header) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out
}

// profileViews pairs each profile of the report with the scenarios the page found for it.
func profileViews(rep report.ConformanceReport, scenarios []Scenario, in *Input) []Profile {
	var out []Profile
	for _, p := range rep.Profiles {
		v := Profile{Name: string(p.Name), Summary: p.Summary, Reason: p.Reason, UntestedServices: p.UntestedServices}
		if reg, ok := features.LookupProfile(p.Name); ok {
			v.Title = reg.Title
		}
		v.Core = Result{Verdict: p.Core.Result, Counts: statCounts(p.Core.Statistics)}
		ext := Result{Counts: Counts{}}
		if p.Extended != nil {
			ext = Result{Verdict: p.Extended.Result.Result, Counts: statCounts(p.Extended.Statistics)}
			v.Supported = featureDocs(p.Extended.SupportedFeatures)
			v.Failed = featureDocs(p.Extended.FailedFeatures)
			v.Unverified = featureDocs(p.Extended.UnverifiedFeatures)
			v.Unsupported = featureDocs(p.Extended.UnsupportedFeatures)
		}
		found := map[bool]Counts{false: {}, true: {}}
		for _, s := range scenarios {
			if s.Profile != v.Name {
				continue
			}
			found[s.Extended][s.Outcome]++
			switch s.Outcome {
			case NotSupported:
				if s.Extended {
					ext.Counts[NotSupported]++
				} else {
					v.Core.Counts[NotSupported]++
				}
			case NotUnderTest:
				v.NotUnderTest++
			}
		}
		if p.Extended != nil || ext.Counts.Total() > 0 {
			if ext.Verdict == "" {
				ext.Verdict = report.NotSupported
			}
			v.Extended = &ext
		}
		// The page's outcomes must agree with the report's statistics; a stale cucumber.json would not.
		for _, part := range []struct {
			name  string
			stats Counts
			ext   bool
		}{{"core", v.Core.Counts, false}, {"extended", ext.Counts, true}} {
			for _, o := range []features.Outcome{Passed, Failed, Blocked, Skipped} {
				if got, want := found[part.ext][o], part.stats[o]; got != want {
					in.Notes = append(in.Notes, fmt.Sprintf("profile %s, %s: the report counts %d %s, the page found %d", v.Name, part.name, want, OutcomeLabel(o), got))
				}
			}
		}
		out = append(out, v)
	}
	return out
}

func statCounts(st report.Statistics) Counts {
	return Counts{Passed: st.Passed, Failed: st.Failed, Blocked: st.Blocked, Skipped: st.Skipped}
}

func featureDocs(names []string) []Feature {
	var out []Feature
	for _, n := range names {
		out = append(out, Feature{Name: n, Doc: features.Capability(n).Doc()})
	}
	return out
}

// overall is the worst result of the profiles: failure, blocked, partial, success; profiles the target does not
// support count for nothing.
func overall(rep report.ConformanceReport) report.Verdict {
	rank := map[report.Verdict]int{report.Success: 1, report.Partial: 2, report.BlockedVerdict: 3, report.Failure: 4}
	worst := report.Verdict("")
	for _, p := range rep.Profiles {
		vs := []report.Verdict{p.Core.Result}
		if p.Extended != nil {
			vs = append(vs, p.Extended.Result.Result)
		}
		for _, v := range vs {
			if rank[v] > rank[worst] {
				worst = v
			}
		}
	}
	return cmp.Or(worst, report.NotSupported)
}

func sectionViews(cov *coverage.Coverage, scenarios []Scenario) []Section {
	outcome := map[string]features.Outcome{}
	for _, s := range scenarios {
		outcome[s.ID] = s.Outcome
	}
	var out []Section
	for _, sec := range cov.Sections {
		v := Section{ID: sec.ID, Area: sec.Area, Summary: sec.Summary, NotShown: sec.NotShown}
		for _, cs := range cov.By[sec.ID] {
			v.Scenarios = append(v.Scenarios, ScenarioRef{ID: cs.ID(), Name: cs.Name, Outcome: cmp.Or(outcome[cs.ID()], Unknown)})
		}
		out = append(out, cleanSection(v))
	}
	return out
}

// clean makes every string of a scenario valid UTF-8 and cuts the long ones.
func clean(s Scenario) Scenario {
	s.Name, s.Feature, s.Reason = cleanText(s.Name, MaxText), cleanText(s.Feature, MaxText), cleanText(s.Reason, MaxText)
	for i := range s.Steps {
		st := &s.Steps[i]
		st.Keyword, st.Text, st.Status = cleanText(st.Keyword, MaxText), cleanText(st.Text, MaxText), cleanText(st.Status, 100)
		st.Error, st.DocString = cleanText(st.Error, MaxText), cleanText(st.DocString, MaxText)
		for _, r := range st.Rows {
			for j := range r {
				r[j] = cleanText(r[j], MaxText)
			}
		}
	}
	for i := range s.Exchanges {
		x := &s.Exchanges[i]
		x.Method, x.URL = cleanText(x.Method, 100), cleanText(x.URL, MaxText)
		x.Sent, x.Received = cleanText(x.Sent, 100), cleanText(x.Received, 100)
		for _, hs := range [][]Header{x.RequestHeaders, x.ResponseHeaders} {
			for j := range hs {
				hs[j].Name, hs[j].Value = cleanText(hs[j].Name, 1000), cleanText(hs[j].Value, MaxText)
			}
		}
		x.RequestBody.Text = strings.ToValidUTF8(x.RequestBody.Text, "\uFFFD")
		x.ResponseBody.Text = strings.ToValidUTF8(x.ResponseBody.Text, "\uFFFD")
	}
	for i := range s.Texts {
		s.Texts[i].Name, s.Texts[i].Text = cleanText(s.Texts[i].Name, 1000), cleanText(s.Texts[i].Text, MaxText)
	}
	for i := range s.Images {
		s.Images[i].Name = cleanText(s.Images[i].Name, 1000)
	}
	for i := range s.Omitted {
		s.Omitted[i] = cleanText(s.Omitted[i], 1000)
	}
	return s
}

func cleanSection(s Section) Section {
	s.Summary = cleanText(s.Summary, MaxText)
	return s
}

// cleanText replaces invalid UTF-8 and cuts text longer than limit, noting its size.
func cleanText(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > limit {
		return fmt.Sprintf("%s… (cut: %d bytes in all)", cutUTF8(s, limit), len(s))
	}
	return s
}

// cutUTF8 cuts s at n bytes or before, on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sniffImage reports whether data is an image of the media type it claims.
func sniffImage(mediaType string, data []byte) bool {
	return slices.Contains(imageTypes, mediaType) && http.DetectContentType(data) == mediaType
}

// FilterProfiles are the profiles of the scenarios, in the order of the report, for the page's filter.
func (in Input) FilterProfiles() []string {
	var out []string
	for _, p := range in.Profiles {
		out = append(out, p.Name)
	}
	for _, s := range in.Scenarios {
		if s.Profile != "" && !slices.Contains(out, s.Profile) {
			out = append(out, s.Profile)
		}
	}
	return out
}

// FilterAreas are the areas of the scenarios, in the registry's order, for the page's filter.
func (in Input) FilterAreas() []string {
	var out []string
	for _, a := range features.Areas {
		if slices.ContainsFunc(in.Scenarios, func(s Scenario) bool { return s.Area == string(a) }) {
			out = append(out, string(a))
		}
	}
	return out
}
