package pages

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
)

//go:embed templates/*.html
var templateFiles embed.FS

// Site is the HTML pages, each the layout around its own content.
type Site struct {
	login, consent, errorPage, home *template.Template
	log                             *slog.Logger // template errors
}

// Load parses the pages; log receives the errors of rendering one.
func Load(log *slog.Logger) (*Site, error) {
	load := func(name string) (*template.Template, error) {
		t, err := template.ParseFS(templateFiles, "templates/layout.html", "templates/"+name)
		if err != nil {
			return nil, fmt.Errorf("authserver: page %s: %w", name, err)
		}
		return t, nil
	}
	p := Site{log: log}
	var err error
	for _, f := range []struct {
		t    **template.Template
		name string
	}{{&p.login, "login.html"}, {&p.consent, "consent.html"}, {&p.errorPage, "error.html"}, {&p.home, "home.html"}} {
		if *f.t, err = load(f.name); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// LoginData fills the sign-in page.
type LoginData struct {
	Title, CSRF, Username, Error string
}

// ConsentData fills the consent page.
type ConsentData struct {
	Title, ClientName, UserName, CSRF string
	Scopes                            []ConsentScope
}

// ConsentScope is one checkbox: scope.N = scope.<name>, labelled with the
// group's description; every box starts checked, as in UAA.
type ConsentScope struct {
	Index int
	Name  string
	Label string
}

type errorData struct{ Title, Message string }

// HomeData fills the home page.
type HomeData struct{ Title, UserName string }

// Login shows the sign-in page.
func (p *Site) Login(w http.ResponseWriter, status int, data LoginData) {
	p.render(w, status, p.login, data)
}

// Consent shows the consent page.
func (p *Site) Consent(w http.ResponseWriter, status int, data ConsentData) {
	p.render(w, status, p.consent, data)
}

// Home shows the home page.
func (p *Site) Home(w http.ResponseWriter, status int, data HomeData) {
	p.render(w, status, p.home, data)
}

// Error shows a problem to the user without redirecting anywhere.
func (p *Site) Error(w http.ResponseWriter, status int, title, message string) {
	p.render(w, status, p.errorPage, errorData{Title: title, Message: message})
}

// render writes a page; the page is rendered to a buffer first so that a
// template error becomes a clean 500 instead of half a page.
func (p *Site) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		p.log.Error("rendering a page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY") // no clickjacking of the consent buttons
	// No form-action: browsers apply it to the redirects after a form, and
	// the consent form ends at the client's redirect URI.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
