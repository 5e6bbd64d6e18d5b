// Package expect owns expectations files: the differences a target is known to have from the spec, each named
// by a stable ID (a scenario's, a capability's, a fixture's or a profile's) with the outcome expected (failed,
// blocked, not-supported) and why. tck run --expect judges a run against one (Judge): it passes when every
// failed or blocked scenario is expected and every entry still happens, so the file never goes stale. The
// interop examples keep theirs beside each implementation (examples/*/expectations.yaml), and tck matrix --check
// asks more of them: every difference, not supported capabilities included, has its entry (Explain).
//
// The file:
//
//	expected:
//	  - id: profile:check-token
//	    outcome: blocked
//	    why: No check_token (spec 4.1 is UAA's); tokens are checked by introspection.
//	  - ids: [auth.provisioning, auth.provisioning-errors]
//	    outcome: not-supported
//	    why: No administration API; users and clients are fixtures.
package expect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// File is an expectations file.
type File struct {
	// Path is where it was read from, as given.
	Path    string
	Entries []Entry
}

// Entry is one item of the file: one or more stable IDs, the outcome expected of each, and why.
type Entry struct {
	IDs     []string
	Outcome features.Outcome // features.Failed, features.Blocked or features.Unsupported
	Why     string
	// Line is the entry's line in the file; Lines each ID's.
	Line  int
	Lines map[string]int
}

// Kind is what a stable ID names.
type Kind string

// The kinds of stable IDs.
const (
	KindScenario   Kind = "scenario"   // auth/tokens/a-refresh-token-gets-a-new-access-token
	KindCapability Kind = "capability" // auth.revocation
	KindFixture    Kind = "fixture"    // fixture fixtures.users.outsider, as the report names it
	KindProfile    Kind = "profile"    // profile:check-token
)

// ProfilePrefix starts the stable ID of a profile.
const ProfilePrefix = "profile:"

// fixturePrefix starts a fixture's ID, as the report's unsupportedFeatures spell it.
const fixturePrefix = "fixture "

// outcomeNames are the outcomes an entry may name, as written in the file.
var outcomeNames = map[string]features.Outcome{
	"failed":        features.Failed,
	"blocked":       features.Blocked,
	"not-supported": features.Unsupported,
	"not supported": features.Unsupported,
	"unsupported":   features.Unsupported,
}

// OutcomeName is how the file writes an outcome.
func OutcomeName(o features.Outcome) string {
	if o == features.Unsupported {
		return "not-supported"
	}
	return string(o)
}

// Load reads and checks an expectations file against the features of the run (cat). Every mistake is reported,
// each with its line: a stable ID the suite does not have, one named twice, an outcome that is not failed,
// blocked or not-supported (or not one that kind of ID can have), an entry without why.
func Load(path string, cat *catalog.Catalog) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, cat)
}

// Parse is Load for the bytes of a file; name is its path, for the messages.
func Parse(name string, data []byte, cat *catalog.Catalog) (*File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a mapping with the list expected: (see tck expect --help)", name)
	}
	p := &parser{name: name, ids: knownIDs(cat), seen: map[string]int{}}
	f := &File{Path: name}
	root := doc.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "expected":
			list = v
		default:
			p.errorf(k.Line, "unknown field %q; the file has one list, expected:", k.Value)
		}
	}
	switch {
	case list == nil:
		p.errorf(root.Line, "no list expected: (an empty file expects nothing: write expected: [])")
	case list.Kind != yaml.SequenceNode:
		p.errorf(list.Line, "expected: want a list of entries, each with id (or ids), outcome and why")
	default:
		for _, item := range list.Content {
			if e, ok := p.entry(item); ok {
				f.Entries = append(f.Entries, e)
			}
		}
	}
	if len(p.errs) > 0 {
		return nil, p.err()
	}
	return f, nil
}

// parser collects the mistakes of one file.
type parser struct {
	name string
	ids  map[string]Kind
	seen map[string]int // ID -> line of its first entry
	errs []lineError
}

type lineError struct {
	line int
	msg  string
}

func (p *parser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, lineError{line, fmt.Sprintf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...))})
}

// err is every mistake, in the order of the file's lines.
func (p *parser) err() error {
	slices.SortStableFunc(p.errs, func(a, b lineError) int { return a.line - b.line })
	var msgs []string
	for _, e := range p.errs {
		msgs = append(msgs, e.msg)
	}
	return errors.New(strings.Join(msgs, "\n"))
}

func (p *parser) entry(n *yaml.Node) (Entry, bool) {
	e := Entry{Line: n.Line, Lines: map[string]int{}}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "an entry is a mapping with id (or ids), outcome and why")
		return e, false
	}
	ok := true
	var idNodes []*yaml.Node
	var outcome *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "id":
			if v.Kind != yaml.ScalarNode {
				p.errorf(v.Line, "id: want one stable ID (ids: for a list)")
				ok = false
				continue
			}
			idNodes = append(idNodes, v)
		case "ids":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.errorf(v.Line, "ids: want a list of stable IDs")
				ok = false
				continue
			}
			idNodes = append(idNodes, v.Content...)
		case "outcome":
			outcome = v
		case "why":
			e.Why = strings.TrimSpace(v.Value)
		default:
			p.errorf(k.Line, "unknown field %q of an entry; give id (or ids), outcome and why", k.Value)
			ok = false
		}
	}
	if len(idNodes) == 0 {
		p.errorf(n.Line, "the entry names no stable ID: give id (or ids)")
		ok = false
	}
	if outcome == nil {
		p.errorf(n.Line, "the entry has no outcome: give failed, blocked or not-supported")
		ok = false
	} else if o, known := outcomeNames[strings.TrimSpace(outcome.Value)]; known {
		e.Outcome = o
	} else {
		p.errorf(outcome.Line, "outcome %q is not one the suite gives a difference: give failed, blocked or not-supported", outcome.Value)
		ok = false
	}
	if e.Why == "" {
		p.errorf(n.Line, "the entry has no why: say why the difference is one (the standard that allows it, or the issue that will remove it)")
		ok = false
	}
	for _, idn := range idNodes {
		if !p.id(idn, e.Outcome) {
			ok = false
			continue
		}
		e.IDs = append(e.IDs, idn.Value)
		e.Lines[idn.Value] = idn.Line
	}
	return e, ok
}

// id checks one stable ID: known, named once, and of a kind that can have the outcome.
func (p *parser) id(n *yaml.Node, o features.Outcome) bool {
	id := n.Value
	kind, known := p.ids[id]
	if !known {
		p.errorf(n.Line, "%q is no stable ID of the suite: %s", id, suggest(id, p.ids))
		return false
	}
	if first, dup := p.seen[id]; dup {
		p.errorf(n.Line, "%s is named twice (first on line %d): one entry per stable ID", id, first)
		return false
	}
	p.seen[id] = n.Line
	if o != "" && !slices.Contains(outcomesOf(kind), o) {
		p.errorf(n.Line, "%s is a %s, which is never %s; give %s", id, kind, OutcomeName(o), outcomeList(kind))
		return false
	}
	return true
}

// outcomesOf are the outcomes an ID of the kind can be expected to have.
func outcomesOf(k Kind) []features.Outcome {
	if k == KindFixture {
		return []features.Outcome{features.Unsupported}
	}
	return []features.Outcome{features.Failed, features.Blocked, features.Unsupported}
}

func outcomeList(k Kind) string {
	var names []string
	for _, o := range outcomesOf(k) {
		names = append(names, OutcomeName(o))
	}
	return strings.Join(names, " or ")
}

// knownIDs are every stable ID an entry may name, with its kind.
func knownIDs(cat *catalog.Catalog) map[string]Kind {
	ids := map[string]Kind{}
	for _, p := range features.Profiles {
		ids[ProfilePrefix+string(p.Name)] = KindProfile
	}
	for _, c := range features.Capabilities {
		ids[string(c.Name)] = KindCapability
	}
	for _, f := range features.Fixtures {
		ids[fixturePrefix+f.Field()] = KindFixture
	}
	if cat != nil {
		for _, s := range cat.Scenarios {
			ids[s.ID()] = KindScenario
		}
	}
	return ids
}

// KindOf tells what a stable ID names; ok is false for one the suite does not have.
func KindOf(id string, cat *catalog.Catalog) (Kind, bool) {
	k, ok := knownIDs(cat)[id]
	return k, ok
}

// suggest says what the closest known IDs are, or how to list them.
func suggest(id string, ids map[string]Kind) string {
	best, bestDist := "", len(id)/3+3
	for known := range ids {
		if d := distance(id, known); d < bestDist || (d == bestDist && known < best) {
			best, bestDist = known, d
		}
	}
	if best != "" {
		return fmt.Sprintf("did you mean %s? (tck expect --list prints them all)", best)
	}
	return "no scenario, capability, fixture or profile has it (tck expect --list prints them all)"
}

// distance is the Levenshtein distance of two strings, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// IDs lists every stable ID an entry may name, by kind and then by name: for tck expect --list.
func IDs(cat *catalog.Catalog) []string {
	ids := knownIDs(cat)
	out := make([]string, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	order := map[Kind]int{KindProfile: 0, KindCapability: 1, KindFixture: 2, KindScenario: 3}
	slices.SortFunc(out, func(a, b string) int {
		if d := order[ids[a]] - order[ids[b]]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}
