package ciformat

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/fortune-tck/fortune-tck/features"
)

// The cucumber JSON report, as cucumber's implementations write it, with two members of our own on each
// element: outcome (the harness's: passed, failed, blocked, skipped, unsupported, not under test) and reason.

type cukeOutFeature struct {
	URI         string           `json:"uri"`
	ID          string           `json:"id"`
	Keyword     string           `json:"keyword"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Line        int              `json:"line"`
	Tags        []cukeTag        `json:"tags,omitempty"`
	Elements    []cukeOutElement `json:"elements"`
}

type cukeTag struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

type cukeOutElement struct {
	ID       string        `json:"id"`
	Keyword  string        `json:"keyword"`
	Name     string        `json:"name"`
	Line     int           `json:"line"`
	Type     string        `json:"type"`
	Tags     []cukeTag     `json:"tags,omitempty"`
	Before   []cukeHook    `json:"before,omitempty"`
	Steps    []cukeOutStep `json:"steps"`
	Outcome  string        `json:"outcome"`
	Reason   string        `json:"reason,omitempty"`
	Expected string        `json:"expected,omitempty"`
}

type cukeHook struct {
	Match  cukeMatch  `json:"match"`
	Result cukeResult `json:"result"`
}

type cukeMatch struct {
	Location string `json:"location"`
}

type cukeResult struct {
	Status   string `json:"status"`
	Error    string `json:"error_message,omitempty"`
	Duration int64  `json:"duration,omitempty"`
}

type cukeOutStep struct {
	Keyword    string          `json:"keyword"`
	Name       string          `json:"name"`
	Line       int             `json:"line"`
	DocString  *cukeDocString  `json:"doc_string,omitempty"`
	Rows       []cukeRow       `json:"rows,omitempty"`
	Match      cukeMatch       `json:"match"`
	Result     cukeResult      `json:"result"`
	Embeddings []cukeEmbedding `json:"embeddings,omitempty"`
}

type cukeDocString struct {
	Value       string `json:"value"`
	ContentType string `json:"content_type,omitempty"`
	Line        int    `json:"line"`
}

type cukeRow struct {
	Cells []string `json:"cells"`
}

type cukeEmbedding struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type"`
	Data     []byte `json:"data"` // base64
}

// Cucumber renders the run as cucumber JSON.
func Cucumber(r Run) ([]byte, error) {
	out := make([]cukeOutFeature, 0, len(r.Features))
	for _, f := range r.Features {
		cf := cukeOutFeature{URI: f.URI, ID: strings.TrimSuffix(f.URI, ".feature"), Keyword: f.Keyword, Name: f.Name,
			Description: f.Description, Line: f.Line, Tags: tags(f.Tags, f.Line-1), Elements: []cukeOutElement{}}
		for _, s := range f.Scenarios {
			cf.Elements = append(cf.Elements, element(f, s))
		}
		out = append(out, cf)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	return append(data, '\n'), err
}

func element(f Feature, s Scenario) cukeOutElement {
	el := cukeOutElement{ID: s.ID, Keyword: s.Keyword, Name: s.Name, Line: s.Line, Type: "scenario",
		Tags: tags(s.Tags, s.Line-1), Outcome: string(s.Outcome), Reason: cut(s.Reason, MaxMessage), Expected: s.Expected}
	failedStep := false
	for _, st := range s.Steps {
		cs := cukeOutStep{Keyword: st.Keyword, Name: st.Text, Line: st.Line,
			Match:  cukeMatch{Location: fmt.Sprintf("features/%s:%d", f.URI, st.Line)},
			Result: cukeResult{Status: st.Status, Error: cut(st.Error, MaxMessage), Duration: st.Duration.Nanoseconds()}}
		if st.DocString != nil {
			cs.DocString = &cukeDocString{Value: st.DocString.Value, ContentType: st.DocString.MediaType, Line: st.DocString.Line}
		}
		for _, r := range st.Rows {
			cs.Rows = append(cs.Rows, cukeRow{Cells: r})
		}
		for _, e := range st.Embeddings {
			cs.Embeddings = append(cs.Embeddings, cukeEmbedding{Name: e.Name, MimeType: e.MediaType, Data: e.Data})
		}
		failedStep = failedStep || st.Error != ""
		el.Steps = append(el.Steps, cs)
	}
	// Where no step says why (a scenario that did not run, or one whose failure no step holds), a hook does,
	// so that a cucumber viewer shows the reason: failed for a failed or blocked scenario, else skipped.
	if !failedStep && s.Outcome != features.Passed {
		status := "skipped"
		if s.Outcome == features.Failed || s.Outcome == features.Blocked {
			status = "failed"
		}
		el.Before = []cukeHook{{Match: cukeMatch{Location: "fortune-tck"},
			Result: cukeResult{Status: status, Error: cut(outcomeLabel(s.Outcome)+": "+s.Reason, MaxMessage)}}}
	}
	return el
}

// tags lists tag names as cucumber JSON does; the line is where they are written (the line above, as features
// write them).
func tags(names []string, line int) []cukeTag {
	var out []cukeTag
	for _, n := range names {
		out = append(out, cukeTag{Name: n, Line: line})
	}
	return out
}

// Outcome is a scenario's outcome as a cucumber.json the harness wrote carries it.
type Outcome struct {
	ID       string
	Outcome  features.Outcome
	Reason   string
	Expected string
}

// ReadOutcomes reads back every scenario of a cucumber.json a run wrote, in its order, with its outcome and
// reason (a file of another writer gives no outcome, and the error message of an element's first failed step as
// its reason).
func ReadOutcomes(path string) ([]Outcome, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc []struct {
		Elements []struct {
			ID       string `json:"id"`
			Outcome  string `json:"outcome"`
			Reason   string `json:"reason"`
			Expected string `json:"expected"`
			Steps    []struct {
				Result cukeResult `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a cucumber JSON report: %v", path, err)
	}
	var out []Outcome
	for _, f := range doc {
		for _, el := range f.Elements {
			o := Outcome{ID: el.ID, Outcome: features.Outcome(el.Outcome), Reason: el.Reason, Expected: el.Expected}
			for _, st := range el.Steps {
				if o.Reason == "" && st.Result.Status == "failed" {
					o.Reason = st.Result.Error
				}
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// ReadReasons reads back the reason of every scenario of a cucumber.json that has one, by stable ID.
func ReadReasons(path string) (map[string]string, error) {
	outcomes, err := ReadOutcomes(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, o := range outcomes {
		if o.Reason != "" {
			out[o.ID] = o.Reason
		}
	}
	return out, nil
}
