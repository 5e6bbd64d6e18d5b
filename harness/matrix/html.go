package matrix

import (
	"io"
	"slices"

	"github.com/fortune-tck/fortune-tck/harness/htmlreport"
)

// HTML renders the rows as a self-contained page in the style of the run reports (htmlreport): each profile's
// core and extended result with its counts drawn, the capabilities not declared, and the notes that apply.
func HTML(w io.Writer, rows []Row) error {
	return htmlreport.RenderMatrix(w, View(rows))
}

// View is the table as htmlreport draws it.
func View(rows []Row) htmlreport.Matrix {
	var m htmlreport.Matrix
	for _, r := range rows {
		for _, p := range r.Report.Profiles {
			if !slices.Contains(m.Profiles, string(p.Name)) {
				m.Profiles = append(m.Profiles, string(p.Name))
			}
		}
	}
	for _, r := range rows {
		v := htmlreport.MatrixRow{Implementation: r.Report.Implementation, Date: r.Report.Date, SuiteVersion: r.Report.SuiteVersion}
		for _, name := range m.Profiles {
			cell := htmlreport.MatrixCell{}
			for _, p := range r.Report.Profiles {
				if string(p.Name) == name {
					cell = htmlreport.MatrixCellOf(p)
				}
			}
			v.Cells = append(v.Cells, cell)
		}
		applied, unexplained, stale := r.Explain()
		for _, n := range applied {
			v.Notes = append(v.Notes, htmlreport.MatrixNote{About: n.IDs, Why: n.Why})
		}
		v.Unexplained, v.Stale = unexplained, stale
		m.Rows = append(m.Rows, v)
	}
	return m
}
