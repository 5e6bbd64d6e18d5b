package matrix

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/expect"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Two scenarios of the suite: one of the check-token profile, one of the oauth profile.
const (
	checkTokenID = "auth/check-token/an-expired-token-is-answered-400-invalid_token"
	basicID      = "auth/authorization-code/the-client-may-also-authenticate-with-http-basic-at-the-token-endpoint"
)

func rows() []Row {
	a := report.ConformanceReport{Kind: "ConformanceReport", Date: "2026-11-24T10:00:00Z",
		Implementation: report.Implementation{Project: "alpha <script>alert(1)</script>", URL: "https://alpha.example", Version: "1.0"},
		Profiles: []report.Profile{
			{Name: "oauth", Core: report.Result{Result: report.Success, Statistics: report.Statistics{Passed: 12}},
				Extended: &report.Extended{Result: report.Result{Result: report.Success, Statistics: report.Statistics{Passed: 3}},
					UnsupportedFeatures: []string{"auth.refresh-rotation"}}},
			{Name: "check-token", Reason: "no check_token endpoint: 404", Core: report.Result{Result: report.Failure,
				Statistics: report.Statistics{Blocked: 9}, BlockedTests: []report.BlockedTest{{Name: checkTokenID, Cause: "404"}}}},
		}}
	b := report.ConformanceReport{Kind: "ConformanceReport", Implementation: report.Implementation{Project: "beta", URL: "javascript:alert(1)", Version: "2"},
		Profiles: []report.Profile{{Name: "oauth", Core: report.Result{Result: report.Failure, Statistics: report.Statistics{Passed: 11, Failed: 1},
			FailedTests: []string{basicID}}}}}
	return []Row{
		{Report: a, Expect: &expect.File{Entries: []expect.Entry{
			{IDs: []string{"profile:check-token"}, Outcome: features.Blocked, Why: "No check_token </td><img src=x onerror=alert(1)>"},
			{IDs: []string{"auth.refresh-rotation"}, Outcome: features.Unsupported, Why: "RFC 6749 6 allows it"}}}},
		{Report: b},
	}
}

// The page has a column per profile of any row, a cell per profile of each row ("not under test" where a row
// has none), the notes that apply and the differences without one; what the reports say is text.
func TestHTMLHasEveryProfileAndNote(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, rows()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>alert") || strings.Contains(out, "<img src=x") || strings.Contains(out, "javascript:") {
		t.Error("a report's text reached the page as markup")
	}
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var cells, imgs int
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "td" {
			cells++
		}
		if n.Type == html.ElementNode && n.Data == "img" {
			imgs++
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if cells != 2*(1+2+1) || imgs != 0 {
		t.Errorf("%d cells (want two rows of implementation, two profiles, notes), %d images", cells, imgs)
	}
	s := text.String()
	for _, w := range []string{"alpha <script>alert(1)</script>", "No check_token </td><img src=x onerror=alert(1)>", "RFC 6749 6 allows it",
		"about: profile:check-token", "not under test", "differences without an entry: " + basicID + "",
		"no check_token endpoint: 404", "auth.refresh-rotation", "12 passed", "1 failed"} {
		if !strings.Contains(s, w) {
			t.Errorf("the page does not say %q", w)
		}
	}
	v := View(rows())
	if len(v.Profiles) != 2 || v.Rows[1].Cells[1].Present || !v.Rows[0].Cells[1].Present {
		t.Errorf("profiles %v, cells %+v", v.Profiles, v.Rows[1].Cells)
	}
}
