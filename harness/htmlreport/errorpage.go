package htmlreport

import (
	"io"
	"path/filepath"
	"time"
)

// ErrorPage is the page of a run that could not be carried out: it takes the place of the report in index.html,
// so that whoever opens the folder (a CI artifact) sees why there is no verdict rather than an earlier one.
type ErrorPage struct {
	Message string // the error, as tck printed it
	Status  int    // tck's exit status
	Time    time.Time
	// Logs is set when the run left service logs in the folder's logs/.
	Logs bool
}

// RenderError writes the page of a run that could not be carried out.
func RenderError(w io.Writer, p ErrorPage) error {
	p.Message = cleanText(p.Message, MaxText)
	return execute(w, "error", p)
}

// WriteErrorDir writes that page to dir/index.html, creating dir, and returns its path.
func WriteErrorDir(dir string, p ErrorPage) (string, error) {
	path := filepath.Join(dir, "index.html")
	return path, writeFile(path, func(w io.Writer) error { return RenderError(w, p) })
}
