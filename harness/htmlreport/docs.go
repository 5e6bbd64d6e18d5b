package htmlreport

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Docs are the features as a browsable spec: area, feature, scenario, with what each states (spec sections,
// capabilities, services, fixtures), the features' descriptions, the steps, and the latest outcome of each
// scenario when a run's report is given.
type Docs struct {
	Areas        []DocArea
	Sections     []DocSection // every section of the spec, with the scenarios that cite it
	Capabilities []DocCapability
	// Report is the run the outcomes come from (nil for none); Totals count them.
	Report *report.ConformanceReport
	Totals Counts
	Source string
}

// DocArea is a folder of features with its profiles.
type DocArea struct {
	Name     string
	Primary  string // the service without which the area is not under test
	Profiles []DocProfile
	Features []DocFeature
}

// DocProfile names a profile of an area.
type DocProfile struct{ Name, Title, Capability string }

// DocFeature is one feature file.
type DocFeature struct {
	URI, Anchor, Name, Description string
	Profile                        string
	Tags                           DocTags
	Background                     []DocStep
	Scenarios                      []DocScenario
}

// DocTags sorts a feature's or scenario's tags by what they state.
type DocTags struct {
	Specs        []DocSection
	Capabilities []DocCapability
	Services     []string
	Fixtures     []string
	Other        []string
}

// DocSection is a spec section a tag cites, with its summary; Scenarios are the scenarios that cite it (in the
// sections appendix).
type DocSection struct {
	ID, Summary, Area string
	NotShown          bool
	Known             bool
	Scenarios         []ScenarioRef
}

// DocCapability is an optional capability with what it means; Scenarios are those that need it (in the
// capabilities appendix).
type DocCapability struct {
	Name, Doc string
	Scenarios []ScenarioRef
}

// DocScenario is a scenario, or a scenario outline with its examples.
type DocScenario struct {
	Keyword, Name, Description string
	Anchor                     string // the stable ID of a scenario; file:line of an outline
	ID                         string // empty for an outline: each row has its own
	Line                       int
	Tags                       DocTags
	Steps                      []DocStep
	Examples                   []DocExamples
	Outcome                    features.Outcome // empty without a report
	Reason                     string
}

// DocExamples is an outline's table; each row is a scenario of its own.
type DocExamples struct {
	Name   string
	Header []string
	Rows   []DocRow
}

// DocRow is one example row.
type DocRow struct {
	ID      string
	Cells   []string
	Outcome features.Outcome
	Reason  string
}

// DocStep is a step as written.
type DocStep struct {
	Keyword, Text, DocString string
	Table                    [][]string
}

// BuildDocs reads the features of fsys. cat is their catalog, sections the spec's index; run, when not nil, is a
// run's report (FromFiles) whose outcomes the page shows.
func BuildDocs(fsys fs.FS, cat *catalog.Catalog, sections []coverage.Section, run *Input) (Docs, error) {
	d := Docs{}
	secs := map[string]coverage.Section{}
	for _, s := range sections {
		secs[s.ID] = s
	}
	byLine := map[string]catalog.Scenario{}
	for _, s := range cat.Scenarios {
		byLine[s.Location()] = s
	}
	outcomes := map[string]Scenario{}
	if run != nil {
		d.Report = &run.Report
		d.Totals = Counts{}
		d.Source = strings.Join(run.Sources, ", ")
		for _, s := range run.Scenarios {
			outcomes[s.ID] = s
		}
	}
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".feature") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return d, err
	}
	slices.Sort(files)
	areas := map[string]*DocArea{}
	var order []string
	for _, a := range features.Areas {
		order = append(order, string(a))
	}
	for _, file := range files {
		area, _, _ := strings.Cut(file, "/")
		if !slices.Contains(order, area) {
			order = append(order, area)
		}
		f, err := docFeature(fsys, file, secs, byLine, outcomes, run != nil)
		if err != nil {
			return d, err
		}
		a := areas[area]
		if a == nil {
			a = &DocArea{Name: area, Primary: string(features.Area(area).Primary())}
			for _, p := range features.Profiles {
				if string(p.Area) == area {
					a.Profiles = append(a.Profiles, DocProfile{Name: string(p.Name), Title: p.Title, Capability: string(p.Capability)})
				}
			}
			areas[area] = a
		}
		a.Features = append(a.Features, f)
	}
	for _, name := range order {
		if a := areas[name]; a != nil {
			d.Areas = append(d.Areas, *a)
		}
	}
	// The appendices: every section and capability with the scenarios that cite or need it.
	cites := map[string][]ScenarioRef{}
	needs := map[string][]ScenarioRef{}
	for _, s := range cat.Scenarios {
		ref := ScenarioRef{ID: s.ID(), Name: s.Name, Outcome: outcomes[s.ID()].Outcome}
		for _, id := range s.TagsWithPrefix(coverage.SpecTag) {
			cites[id] = append(cites[id], ref)
		}
		for _, c := range requirementsOf(s) {
			needs[c] = append(needs[c], ref)
		}
		if run != nil {
			d.Totals[cmpOutcome(outcomes[s.ID()].Outcome)]++
		}
	}
	for _, s := range sections {
		d.Sections = append(d.Sections, DocSection{ID: s.ID, Summary: cleanText(s.Summary, MaxText), Area: s.Area,
			NotShown: s.NotShown, Known: true, Scenarios: cites[s.ID]})
	}
	for _, c := range features.Capabilities {
		d.Capabilities = append(d.Capabilities, DocCapability{Name: string(c.Name), Doc: c.Doc, Scenarios: needs[string(c.Name)]})
	}
	return d, nil
}

func cmpOutcome(o features.Outcome) features.Outcome {
	if o == "" {
		return Unknown
	}
	return o
}

// requirementsOf are the capabilities a scenario needs: its own and its profile's.
func requirementsOf(s catalog.Scenario) []string {
	out := s.TagsWithPrefix(features.CapabilityTag)
	if p, ok := features.LookupProfile(s.Profile); ok && p.Capability != "" && !slices.Contains(out, string(p.Capability)) {
		out = append(out, string(p.Capability))
	}
	return out
}

func docFeature(fsys fs.FS, file string, secs map[string]coverage.Section, byLine map[string]catalog.Scenario, outcomes map[string]Scenario, withRun bool) (DocFeature, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return DocFeature{}, err
	}
	ids := &messages.Incrementing{}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), ids.NewId)
	if err != nil {
		return DocFeature{}, fmt.Errorf("%s: %w", file, err)
	}
	if doc.Feature == nil {
		return DocFeature{}, fmt.Errorf("%s: no Feature", file)
	}
	ft := doc.Feature
	area, _, _ := strings.Cut(file, "/")
	f := DocFeature{URI: file, Anchor: "feature-" + strings.TrimSuffix(file, ".feature"), Name: cleanText(ft.Name, MaxText),
		Description: cleanText(dedent(ft.Description), 1<<20), Tags: docTags(ft.Tags, secs), Profile: area}
	for _, t := range ft.Tags {
		if p, ok := strings.CutPrefix(t.Name, features.ProfileTag); ok {
			f.Profile = p
		}
	}
	// A rule's background comes before the steps of each of its scenarios.
	addScenario := func(sc *messages.Scenario, background []DocStep) {
		s := DocScenario{Keyword: sc.Keyword, Name: cleanText(sc.Name, MaxText), Description: cleanText(dedent(sc.Description), MaxText),
			Line: int(sc.Location.Line), Tags: docTags(sc.Tags, secs), Steps: append(slices.Clone(background), docSteps(sc.Steps)...)}
		s.Anchor = fmt.Sprintf("%s:%d", strings.TrimSuffix(file, ".feature"), s.Line)
		if len(sc.Examples) == 0 {
			if cs, ok := byLine[fmt.Sprintf("%s:%d", file, s.Line)]; ok {
				s.ID, s.Anchor = cs.ID(), cs.ID()
				if withRun {
					o := outcomes[cs.ID()]
					s.Outcome, s.Reason = cmpOutcome(o.Outcome), o.Reason
				}
			}
		}
		for _, ex := range sc.Examples {
			e := DocExamples{Name: cleanText(ex.Name, MaxText)}
			if ex.TableHeader != nil {
				e.Header = cells(ex.TableHeader)
			}
			for _, row := range ex.TableBody {
				r := DocRow{Cells: cells(row)}
				if cs, ok := byLine[fmt.Sprintf("%s:%d", file, row.Location.Line)]; ok {
					r.ID = cs.ID()
					if withRun {
						o := outcomes[cs.ID()]
						r.Outcome, r.Reason = cmpOutcome(o.Outcome), o.Reason
					}
				}
				e.Rows = append(e.Rows, r)
			}
			s.Examples = append(s.Examples, e)
		}
		f.Scenarios = append(f.Scenarios, s)
	}
	for _, child := range ft.Children {
		switch {
		case child.Background != nil:
			f.Background = append(f.Background, docSteps(child.Background.Steps)...)
		case child.Scenario != nil:
			addScenario(child.Scenario, nil)
		case child.Rule != nil:
			var bg []DocStep
			for _, rc := range child.Rule.Children {
				if rc.Background != nil {
					bg = append(bg, docSteps(rc.Background.Steps)...)
				}
				if rc.Scenario != nil {
					addScenario(rc.Scenario, bg)
				}
			}
		}
	}
	return f, nil
}

func docTags(tags []*messages.Tag, secs map[string]coverage.Section) DocTags {
	var t DocTags
	for _, tag := range tags {
		name := tag.Name
		if id, ok := strings.CutPrefix(name, coverage.SpecTag); ok {
			s, known := secs[id]
			t.Specs = append(t.Specs, DocSection{ID: id, Summary: cleanText(s.Summary, MaxText), Area: s.Area, NotShown: s.NotShown, Known: known})
			continue
		}
		if c, ok := strings.CutPrefix(name, features.CapabilityTag); ok {
			t.Capabilities = append(t.Capabilities, DocCapability{Name: c, Doc: features.Capability(c).Doc()})
			continue
		}
		if s, ok := strings.CutPrefix(name, features.ServiceTag); ok {
			t.Services = append(t.Services, s)
			continue
		}
		if fx, ok := strings.CutPrefix(name, features.FixtureTag); ok {
			t.Fixtures = append(t.Fixtures, fmt.Sprintf("%s (%s in a target file, or an administration API)", fx, features.Fixture(fx).Field()))
			continue
		}
		if name == features.FreshConsentTag {
			t.Other = append(t.Other, name+": must see a consent page, so needs a fresh user (provisioning) where the server remembers consents")
			continue
		}
		if strings.HasPrefix(name, features.ProfileTag) {
			continue // shown with the feature
		}
		t.Other = append(t.Other, name)
	}
	return t
}

func docSteps(steps []*messages.Step) []DocStep {
	var out []DocStep
	for _, st := range steps {
		s := DocStep{Keyword: strings.TrimSpace(st.Keyword), Text: cleanText(st.Text, MaxText)}
		if st.DocString != nil {
			s.DocString = cleanText(st.DocString.Content, MaxText)
		}
		if st.DataTable != nil {
			for _, r := range st.DataTable.Rows {
				s.Table = append(s.Table, cells(r))
			}
		}
		out = append(out, s)
	}
	return out
}

func cells(r *messages.TableRow) []string {
	var out []string
	for _, c := range r.Cells {
		out = append(out, cleanText(c.Value, MaxText))
	}
	return out
}

// dedent removes the indentation gherkin keeps in descriptions.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// paragraphs splits a description at its blank lines and joins each paragraph's lines.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// RenderDocs writes the features as a browsable spec.
func RenderDocs(w io.Writer, d Docs) error {
	return execute(w, "docs", d)
}

// WriteDocs renders the spec page to path, creating its folder.
func WriteDocs(path string, d Docs) error {
	return writeFile(path, func(w io.Writer) error { return RenderDocs(w, d) })
}
