package htmlreport

import (
	"io"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Matrix is the interop table: one row per implementation, one column per profile, and why each differs
// where it does (harness/matrix builds it from the reports and their notes).
type Matrix struct {
	Profiles []string
	Rows     []MatrixRow
}

// MatrixRow is one implementation's report.
type MatrixRow struct {
	Implementation report.Implementation
	Date           string
	SuiteVersion   string
	Cells          []MatrixCell // one per profile of Matrix.Profiles
	Notes          []MatrixNote
	// Unexplained are differences without a note; Stale are notes about nothing the report shows.
	Unexplained, Stale []string
}

// MatrixCell is one profile's result; Present is false for a profile the implementation was not tested for.
type MatrixCell struct {
	Present            bool
	Core               Result
	Extended           *Result
	Reason             string
	Unsupported        []string
	Failed, Unverified []string
}

// MatrixNote says why an implementation differs where it does.
type MatrixNote struct {
	About []string
	Why   string
}

// RenderMatrix writes the interop table as a page.
func RenderMatrix(w io.Writer, m Matrix) error {
	return execute(w, "matrix", m)
}

// MatrixCellOf is the cell of a report's profile.
func MatrixCellOf(p report.Profile) MatrixCell {
	c := MatrixCell{Present: true, Reason: cleanText(p.Reason, MaxText),
		Core: Result{Verdict: p.Core.Result, Counts: statCounts(p.Core.Statistics)}}
	if x := p.Extended; x != nil {
		c.Extended = &Result{Verdict: x.Result.Result, Counts: statCounts(x.Statistics)}
		c.Unsupported, c.Failed, c.Unverified = x.UnsupportedFeatures, x.FailedFeatures, x.UnverifiedFeatures
	}
	return c
}
