package expect

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// From makes a starting file from a run: an entry for each profile that could not run at all (with its one
// reason), each failed or blocked scenario of the other profiles, and each capability or fixture the target
// does not declare, every one with the run's own reason as its why, to be edited into the real one.
func From(run Run, cat *catalog.Catalog) *File {
	f := &File{}
	add := func(id string, o features.Outcome, why string) {
		f.Entries = append(f.Entries, Entry{IDs: []string{id}, Outcome: o, Why: oneLine(why)})
	}
	whole := map[features.ProfileName]bool{}
	for _, p := range run.Report.Profiles {
		if p.Reason != "" && (p.Core.Statistics.Blocked > 0 || (p.Extended != nil && p.Extended.Statistics.Blocked > 0)) {
			whole[p.Name] = true
			add(ProfilePrefix+string(p.Name), features.Blocked, p.Reason)
		}
	}
	for _, s := range cat.Scenarios {
		o := run.Outcomes[s.ID()]
		if (o != features.Failed && o != features.Blocked) || whole[s.Profile] {
			continue
		}
		add(s.ID(), o, reasonOr(run.Reasons[s.ID()], o))
	}
	for _, feature := range run.Report.UnsupportedFeatures() {
		why := "the target does not declare it"
		if d, ok := features.LookupCapability(feature); ok {
			why += ": " + d.Doc
		}
		add(feature, features.Unsupported, why)
	}
	return f
}

func reasonOr(reason string, o features.Outcome) string {
	if strings.TrimSpace(reason) == "" {
		return string(o) + " (the run gave no reason)"
	}
	return reason
}

// oneLine makes a run's reason a why to edit: its lines joined, cut at 400 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 400 {
		s = string(r[:400]) + "…"
	}
	return s
}

// header opens a file From writes.
const header = `# Known differences for tck run --expect: the run exits 0 when every failed or blocked scenario is named here
# (by its own stable ID, a capability's or its profile's "profile:<name>") with that outcome, and 1 when one is
# not, or when an entry here did not happen (the scenario now passes: remove the entry). Each why below is the
# run's own reason: replace it with why the difference is one (the standard that allows it, or the issue that
# will remove it).
`

// Write writes the file in its format, starting with a comment that says how it is read.
func Write(w io.Writer, f *File) error {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, e := range f.Entries {
		m := &yaml.Node{Kind: yaml.MappingNode}
		if len(e.IDs) == 1 {
			m.Content = append(m.Content, scalar("id"), scalar(e.IDs[0]))
		} else {
			ids := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, id := range e.IDs {
				ids.Content = append(ids.Content, scalar(id))
			}
			m.Content = append(m.Content, scalar("ids"), ids)
		}
		m.Content = append(m.Content, scalar("outcome"), scalar(OutcomeName(e.Outcome)), scalar("why"), scalar(e.Why))
		seq.Content = append(seq.Content, m)
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("expected"), seq}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// Explain holds a run to what a published interop row needs (tck matrix --check, make interop): every failed
// or blocked scenario expected, and every capability or fixture the target does not declare named too (but for
// a profile that could not run at all, whose entry is its own); no entry the run contradicts or could not judge. It returns the differences without an entry and the entries that
// explain nothing the run showed.
func Explain(f *File, cat *catalog.Catalog, run Run) (unexplained, stale []string) {
	j := Judge(f, cat, run)
	for _, u := range j.Unexpected {
		unexplained = append(unexplained, u.Name)
	}
	named := map[string]bool{}
	for _, e := range f.Entries {
		for _, id := range e.IDs {
			named[id] = e.Outcome == features.Unsupported || named[id]
		}
	}
	for _, p := range run.Report.Profiles {
		if p.Reason != "" || p.Extended == nil {
			continue // a profile that could not run at all is one difference, its own entry's
		}
		for _, feature := range p.Extended.UnsupportedFeatures {
			if !named[feature] {
				unexplained = append(unexplained, feature)
			}
		}
	}
	for _, s := range j.DidNotHappen {
		stale = append(stale, fmt.Sprintf("%s (line %d: expected %s, was %s)", s.ID, s.Line, OutcomeName(s.Expected), s.Actual))
	}
	for _, id := range j.NotJudged {
		stale = append(stale, id+" (not in the run)")
	}
	slices.Sort(unexplained)
	return slices.Compact(unexplained), stale
}

// RunOf reads a run back from its conformance report, for judging it after the fact.
func RunOf(rep report.ConformanceReport, reasons map[string]string) Run {
	return Run{Report: rep, Outcomes: rep.Outcomes(), Reasons: reasons}
}
