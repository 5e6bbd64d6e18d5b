package configapp

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"net/http"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
	"github.com/fortune-tck/fortune-tck/reference/internal/negotiate"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are parsed once; the templates are part of the binary, and a test
// renders each one.
var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// greetingModel is page "greeting": msg, and fortune only when
// greeting.displayFortune is true.
type greetingModel struct {
	Msg     string `json:"msg"`
	Fortune string `json:"fortune,omitempty"`
}

// quoteModel is page "quote": the quote and the quoteServiceURL it came
// from; error replaces quote when none could be had.
type quoteModel struct {
	Quote string `json:"quote,omitempty"`
	URI   string `json:"uri"`
	Error string `json:"error,omitempty"`
}

func (a *App) serveGreeting(w http.ResponseWriter, r *http.Request, s *snapshot) {
	m := greetingModel{Msg: s.settings.message}
	if s.settings.displayFortune {
		m.Fortune = randomFortune()
	}
	a.logs.pages.Debug("rendering page greeting", "displayFortune", s.settings.displayFortune)
	render(w, r, http.StatusOK, "greeting", m)
}

// serveQuote answers 502 when the quote source failed: the page works but
// what it relays does not. While no quoteServiceURL is configured it answers
// 200: the page works as configured, and says that nothing is. Either way
// the page and the JSON ("error") say why there is no quote.
func (a *App) serveQuote(w http.ResponseWriter, r *http.Request, s *snapshot) {
	m := quoteModel{URI: s.settings.quoteURL}
	quote, err := a.fetchQuote(r.Context(), m.URI)
	status := http.StatusOK
	switch {
	case errors.Is(err, errNoQuoteURL):
		m.Error = err.Error()
	case err != nil:
		status, m.Error = http.StatusBadGateway, err.Error()
		a.logs.pages.Warn("no quote", "uri", m.URI, "err", err)
	default:
		m.Quote = quote
	}
	a.logs.pages.Debug("rendering page quote", "uri", m.URI, "status", status)
	render(w, r, status, "quote", m)
}

// render answers the model as JSON when asked for, and as the page otherwise.
func render(w http.ResponseWriter, r *http.Request, status int, page string, model any) {
	w.Header().Set("Vary", "Accept")
	if negotiate.WantsJSON(r) {
		writeJSON(w, status, model)
		return
	}
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, page, model); err != nil {
		writeError(w, r, http.StatusInternalServerError, "cannot render page "+page)
		return
	}
	httpx.WriteBody(w, status, "text/html; charset=utf-8", buf.Bytes())
}
