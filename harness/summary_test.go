package harness

import (
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// The summary ends by naming the reports' folder once and the page to open; without a page, only the folder.
func TestTheSummaryEndsWithTheReportsAndThePage(t *testing.T) {
	var out strings.Builder
	r := &Result{ReportPath: "out/conformance-report.yaml", PagePath: "out/index.html"}
	printSummary(&out, report.ConformanceReport{}, r, &catalog.Catalog{}, report.NewResults())
	want := "Reports in out: conformance-report.yaml, junit.xml, cucumber.json, summary.md, badge.svg\nOpen out/index.html in a browser to see them.\n"
	if !strings.HasSuffix(out.String(), want) || strings.Contains(out.String(), "Reports:") {
		t.Errorf("the summary ends\n%s\nwant it to end\n%s", out.String(), want)
	}
	out.Reset()
	r.PagePath = ""
	printSummary(&out, report.ConformanceReport{}, r, &catalog.Catalog{}, report.NewResults())
	if !strings.HasSuffix(out.String(), "badge.svg\n") {
		t.Errorf("without a page, the summary ends\n%s", out.String())
	}
}
