// Package ciformat writes a run's junit.xml and cucumber.json from the harness's own model, so that CI systems
// see the suite's outcomes as the conformance report has them: a failed scenario is a JUnit <failure> with its
// message, a blocked one an <error> with its cause, one not supported, not under test or left out by --tags a
// <skipped> with why; the header's counts are the summary line's. cucumber.json carries every scenario with its
// steps, their results and attachments (godog's, matched by place), and the outcome and reason of each
// (members "outcome" and "reason" of the element, and a hook with the reason where no step says it). Both name
// scenarios by their stable IDs. Messages and evidence are taken as the harness recorded them, never re-read
// from the target.
package ciformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// Run is what the two files show.
type Run struct {
	// Name is the suite's name, the JUnit testsuites' name.
	Name string
	// Started is when the run began; Elapsed how long its scenarios took.
	Started time.Time
	Elapsed time.Duration
	// Features are the feature files, in catalog order, each with its scenarios.
	Features []Feature
}

// Feature is one feature file.
type Feature struct {
	URI, Keyword, Name, Description string
	Line                            int
	Tags                            []string
	Scenarios                       []Scenario
}

// Scenario is one scenario (or row of an outline) with its outcome.
type Scenario struct {
	ID, Keyword, Name string
	Line              int
	Tags              []string
	Outcome           features.Outcome
	// Reason says why: the failure message, the block's cause, what the target lacks, or that --tags left it out.
	Reason string
	// Expected names the expectation (tck run --expect) a failed or blocked scenario meets; junit.xml then
	// reports it as skipped, as pytest reports an expected failure.
	Expected string
	Steps    []Step
}

// Duration is the time its steps took.
func (s Scenario) Duration() time.Duration {
	var d time.Duration
	for _, st := range s.Steps {
		d += st.Duration
	}
	return d
}

// Step is a step with its result.
type Step struct {
	Keyword, Text string
	Line          int
	DocString     *DocString
	Rows          [][]string
	// Status is cucumber's: passed, failed, skipped, undefined, pending, ambiguous.
	Status     string
	Error      string
	Duration   time.Duration
	Embeddings []Embedding
}

// DocString is a step's doc string.
type DocString struct {
	Value     string
	MediaType string
	Line      int
}

// Embedding is an attachment (base64 in the file).
type Embedding struct {
	Name, MediaType string
	Data            []byte
}

// Verdict is a scenario's outcome and reason, as the harness recorded them.
type Verdict struct {
	Outcome  features.Outcome
	Reason   string
	Expected string
}

// Build makes the model of a run from the features (for steps and keywords), the catalog (for stable IDs and
// which scenarios to show: those of uris), each scenario's verdict, and godog's cucumber JSON of the run (for
// step results, durations and attachments; nil when no scenario ran).
func Build(fsys fs.FS, cat *catalog.Catalog, uris []string, verdict func(catalog.Scenario) Verdict, godogJSON []byte) (Run, error) {
	ran, err := parseGodog(godogJSON)
	if err != nil {
		return Run{}, fmt.Errorf("godog's cucumber report: %w", err)
	}
	var run Run
	for _, uri := range uris {
		f, err := feature(fsys, uri, cat, verdict, ran)
		if err != nil {
			return Run{}, err
		}
		run.Features = append(run.Features, f)
	}
	return run, nil
}

// feature parses one feature file and gives each of its scenarios its verdict and, when it ran, godog's results.
func feature(fsys fs.FS, uri string, cat *catalog.Catalog, verdict func(catalog.Scenario) Verdict, ran map[string]cukeElement) (Feature, error) {
	data, err := fs.ReadFile(fsys, uri)
	if err != nil {
		return Feature{}, err
	}
	ids := &messages.Incrementing{}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), ids.NewId)
	if err != nil {
		return Feature{}, fmt.Errorf("%s: %w", uri, err)
	}
	if doc.Feature == nil {
		return Feature{}, fmt.Errorf("%s: no Feature", uri)
	}
	ft := doc.Feature
	f := Feature{URI: uri, Keyword: ft.Keyword, Name: ft.Name, Description: ft.Description, Line: int(ft.Location.Line)}
	for _, t := range ft.Tags {
		f.Tags = append(f.Tags, t.Name)
	}
	nodes := astNodes(ft)
	for _, p := range gherkin.Pickles(*doc, uri, ids.NewId) {
		cs, ok := cat.Lookup(catalog.PickleKey(p))
		if !ok {
			return Feature{}, fmt.Errorf("%s: scenario %q is not in the catalog of the run", uri, p.Name)
		}
		s := Scenario{ID: cs.ID(), Keyword: nodes.keyword[p.AstNodeIds[0]], Name: p.Name, Line: cs.Line, Tags: pickleTags(p)}
		v := verdict(cs)
		s.Outcome, s.Reason, s.Expected = v.Outcome, v.Reason, v.Expected
		for _, ps := range p.Steps {
			s.Steps = append(s.Steps, stepOf(ps, nodes))
		}
		if el, ok := ran[cs.Location()]; ok {
			withResults(&s, el)
		}
		settle(&s)
		f.Scenarios = append(f.Scenarios, s)
	}
	return f, nil
}

// nodes are the gherkin steps and scenarios of a feature by AST node id.
type nodes struct {
	step    map[string]*messages.Step
	keyword map[string]string // scenario id -> its keyword (Scenario, Scenario Outline, Example)
}

func astNodes(ft *messages.Feature) nodes {
	n := nodes{step: map[string]*messages.Step{}, keyword: map[string]string{}}
	addScenario := func(sc *messages.Scenario) {
		n.keyword[sc.Id] = sc.Keyword
		for _, st := range sc.Steps {
			n.step[st.Id] = st
		}
	}
	addBackground := func(bg *messages.Background) {
		for _, st := range bg.Steps {
			n.step[st.Id] = st
		}
	}
	for _, c := range ft.Children {
		switch {
		case c.Background != nil:
			addBackground(c.Background)
		case c.Scenario != nil:
			addScenario(c.Scenario)
		case c.Rule != nil:
			for _, rc := range c.Rule.Children {
				if rc.Background != nil {
					addBackground(rc.Background)
				}
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				}
			}
		}
	}
	return n
}

func pickleTags(p *messages.Pickle) []string {
	var out []string
	for _, t := range p.Tags {
		out = append(out, t.Name)
	}
	return out
}

// stepOf is a pickle step as written (its keyword from the feature), not yet run.
func stepOf(ps *messages.PickleStep, n nodes) Step {
	st := Step{Text: ps.Text, Status: "skipped"}
	if src := n.step[ps.AstNodeIds[0]]; src != nil {
		st.Keyword, st.Line = src.Keyword, int(src.Location.Line)
		if src.DocString != nil {
			st.DocString = &DocString{MediaType: src.DocString.MediaType, Line: int(src.DocString.Location.Line)}
		}
	}
	if a := ps.Argument; a != nil {
		if a.DocString != nil {
			if st.DocString == nil {
				st.DocString = &DocString{}
			}
			st.DocString.Value = a.DocString.Content
		}
		if a.DataTable != nil {
			for _, row := range a.DataTable.Rows {
				var cells []string
				for _, c := range row.Cells {
					cells = append(cells, c.Value)
				}
				st.Rows = append(st.Rows, cells)
			}
		}
	}
	return st
}

// withResults takes each step's result, duration and attachments from godog's element of the scenario, step by
// step in order.
func withResults(s *Scenario, el cukeElement) {
	for i := range s.Steps {
		if i >= len(el.Steps) {
			break
		}
		g := el.Steps[i]
		st := &s.Steps[i]
		st.Status, st.Error, st.Duration = g.Result.Status, g.Result.Error, time.Duration(g.Result.Duration)
		for _, e := range g.Embeddings {
			st.Embeddings = append(st.Embeddings, Embedding{Name: e.Name, MediaType: e.MimeType, Data: e.Data})
		}
	}
}

// settle makes the steps say what the harness's verdict says: the message of a failed or blocked scenario is
// the one the harness recorded, on its first failed step (godog's own error text is dropped, so that what is
// masked there is masked here); a scenario that did not run has its steps skipped.
func settle(s *Scenario) {
	switch s.Outcome {
	case features.Failed, features.Blocked:
		first := -1
		for i := range s.Steps {
			if s.Steps[i].Status == "failed" || s.Steps[i].Status == "undefined" || s.Steps[i].Status == "pending" || s.Steps[i].Status == "ambiguous" {
				if first < 0 {
					first = i
				}
			}
			s.Steps[i].Error = ""
		}
		if first >= 0 {
			s.Steps[first].Error = s.Reason
		}
	case features.Passed:
		for i := range s.Steps {
			s.Steps[i].Error = ""
		}
	default:
		for i := range s.Steps {
			s.Steps[i].Status, s.Steps[i].Error, s.Steps[i].Duration = "skipped", "", 0
		}
	}
}

// godog's cucumber JSON, as much of it as the model takes.
type cukeFeature struct {
	URI      string        `json:"uri"`
	Elements []cukeElement `json:"elements"`
}

type cukeElement struct {
	Line  int        `json:"line"`
	Type  string     `json:"type"`
	Steps []cukeStep `json:"steps"`
}

type cukeStep struct {
	Result struct {
		Status   string `json:"status"`
		Error    string `json:"error_message"`
		Duration int64  `json:"duration"`
	} `json:"result"`
	Embeddings []struct {
		Name     string `json:"name"`
		MimeType string `json:"mime_type"`
		Data     []byte `json:"data"` // base64, as godog writes it
	} `json:"embeddings"`
}

// parseGodog indexes godog's elements by place ("auth/tokens.feature:12", an outline row's own line).
func parseGodog(data []byte) (map[string]cukeElement, error) {
	out := map[string]cukeElement{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	var doc []cukeFeature
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for _, f := range doc {
		for _, el := range f.Elements {
			if el.Type == "background" {
				continue
			}
			out[fmt.Sprintf("%s:%d", f.URI, el.Line)] = el
		}
	}
	return out, nil
}
