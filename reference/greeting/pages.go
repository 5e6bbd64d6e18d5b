package greeting

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"

	"github.com/fortune-tck/fortune-tck/reference/internal/negotiate"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are parsed once; the templates are part of the binary, and tests
// render each one.
var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// viewer is the signed-in user a page is for.
type viewer struct{ user, csrf string }

// pageModel is what the templates show.
type pageModel struct {
	Title, Message string
	User, Fortune  string
	CSRF           string
	SignedIn       bool
}

// fortuneJSON and errorJSON are the pages for Accept: application/json.
type fortuneJSON struct {
	User    string `json:"user"`
	Fortune string `json:"fortune"`
}

type errorJSON struct {
	Error string `json:"error"`
	User  string `json:"user,omitempty"`
}

func (s *Server) renderFortune(w http.ResponseWriter, r *http.Request, v *viewer, fortune string) {
	if negotiate.WantsJSON(r) {
		writeJSON(w, http.StatusOK, fortuneJSON{User: v.user, Fortune: fortune})
		return
	}
	s.renderHTML(w, http.StatusOK, "fortune", pageModel{User: v.user, Fortune: fortune, CSRF: v.csrf, SignedIn: true})
}

// renderError renders an error page; v is the signed-in user, or nil.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, status int, v *viewer, title, message string) {
	m := pageModel{Title: title, Message: message}
	if v != nil {
		m.User, m.CSRF, m.SignedIn = v.user, v.csrf, true
	}
	if negotiate.WantsJSON(r) {
		writeJSON(w, status, errorJSON{Error: message, User: m.User})
		return
	}
	s.renderHTML(w, status, "error", m)
}

func (s *Server) renderHTML(w http.ResponseWriter, status int, page string, m pageModel) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, page, m); err != nil {
		s.log.Error("cannot render a page", "page", page, "err", err)
		writeJSON(w, http.StatusInternalServerError, errorJSON{Error: "The page cannot be shown."})
		return
	}
	writeBody(w, status, "text/html; charset=utf-8", buf.Bytes())
}
