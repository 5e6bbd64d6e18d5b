package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

//go:embed templates/*.tmpl templates/style.css templates/page.js
var files embed.FS

// The page's own script, and its hash for the Content-Security-Policy that lets it alone run: even a string
// that escaped escaping could not run a script of its own, load anything or send anything anywhere.
var (
	pageJS     = mustRead("templates/page.js")
	pageCSS    = mustRead("templates/style.css")
	scriptHash = func() string {
		sum := sha256.Sum256([]byte(pageJS))
		return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	}()
)

var pages = template.Must(parse())

func mustRead(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// parse builds the template set. The style and the script are the package's own files, put into the templates'
// text (so html/template takes them as the page's own markup, as it takes the rest of a template file); no value
// a page shows is ever marked safe.
func parse() (*template.Template, error) {
	t := template.New("pages").Funcs(template.FuncMap{
		"label":    OutcomeLabel,
		"oclass":   outcomeClass,
		"eclass":   expectationClass,
		"dur":      formatDuration,
		"bar":      bar,
		"imgsrc":   imageSource,
		"csp":      func() string { return csp },
		"outcomes": func() []features.Outcome { return Outcomes },
		"vclass":   verdictClass,
		"pct":      func(n, total int) int { return n * 100 / max(total, 1) },
		"join":     strings.Join,
		"paras":    paragraphs,
		"anchor":   func(id string) string { return "#" + id },
		"isWeb": func(u string) bool {
			u = strings.ToLower(u)
			return strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")
		},
		"plural": func(n int, noun string) string {
			if n == 1 {
				return "1 " + noun
			}
			return fmt.Sprintf("%d %ss", n, noun)
		},
		"hasPrefix": strings.HasPrefix,
		"add":       func(a, b int) int { return a + b },
		"count":     func(c Counts, o features.Outcome) int { return c[o] },
		"httpStatus": func(code int) string {
			if code == 0 {
				return "no answer"
			}
			return fmt.Sprintf("%d", code)
		},
	})
	if _, err := t.New("style").Parse(`{{define "style"}}<style>` + pageCSS + `</style>{{end}}`); err != nil {
		return nil, err
	}
	if _, err := t.New("script").Parse(`{{define "script"}}<script>` + pageJS + `</script>{{end}}`); err != nil {
		return nil, err
	}
	return t.ParseFS(files, "templates/*.tmpl")
}

// csp allows the page's inline style, data: pictures and its one script; nothing else.
var csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '" + scriptHash + "'; base-uri 'none'; form-action 'none'"

// Render writes the report page.
func Render(w io.Writer, in Input) error {
	return execute(w, "report", in)
}

// WriteFile renders the report page to path, creating its folder.
func WriteFile(path string, in Input) error {
	return writeFile(path, func(w io.Writer) error { return Render(w, in) })
}

// WriteDir renders the page of the run whose reports are in dir (conformance-report.yaml, and cucumber.json
// when there is one: a run that ran no scenario through godog has none) to dir/index.html, and returns its
// path. The harness calls it after every run; cat and sections are those of the features the run ran.
func WriteDir(dir string, cat *catalog.Catalog, sections []coverage.Section) (string, error) {
	cucumber := filepath.Join(dir, "cucumber.json")
	if _, err := os.Stat(cucumber); err != nil {
		cucumber = ""
	}
	in, err := FromFiles(filepath.Join(dir, "conformance-report.yaml"), cucumber, cat, sections)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "index.html")
	return path, WriteFile(path, in)
}

func writeFile(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// execute renders a page; whatever invalid UTF-8 reached it is replaced (escaping never produces any, and a
// replaced byte cannot become markup).
func execute(w io.Writer, name string, data any) error {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	_, err := w.Write(bytes.ToValidUTF8(buf.Bytes(), []byte("\uFFFD")))
	return err
}

// segment is one outcome's part of a bar.
type segment struct {
	X, W  float64
	Class string
	Title string
}

// barView is an inline SVG bar of counts.
type barView struct {
	Width, Height int
	Segments      []segment
	Total         int
}

// bar draws counts as segments of a bar width pixels wide, in the order of Outcomes but passed first.
func bar(c Counts, width int) barView {
	v := barView{Width: width, Height: 14, Total: c.Total()}
	if v.Total == 0 {
		return v
	}
	x := 0.0
	for _, o := range []features.Outcome{Passed, Failed, Blocked, Skipped, NotSupported, NotUnderTest, Unknown} {
		n := c[o]
		if n == 0 {
			continue
		}
		w := float64(width) * float64(n) / float64(v.Total)
		v.Segments = append(v.Segments, segment{X: x, W: w, Class: "o-" + outcomeClass(o), Title: fmt.Sprintf("%d %s", n, OutcomeLabel(o))})
		x += w
	}
	return v
}

func verdictClass(v report.Verdict) string {
	switch v {
	case report.Success:
		return "o-passed"
	case report.Failure:
		return "o-failed"
	case report.BlockedVerdict:
		return "o-blocked"
	case report.Partial:
		return "o-skipped"
	}
	return "o-not-supported"
}

// imageSource is a data: URL of a picture whose bytes are of the type it claims, else nothing (and the page says
// so).
func imageSource(img Image) template.URL {
	if !sniffImage(img.MediaType, img.Data) || len(img.Data) > MaxImage {
		return ""
	}
	return template.URL("data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
}

func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}
