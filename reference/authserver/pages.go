package authserver

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pages are the HTML pages, each the layout around its own content.
type pages struct {
	login, consent, errorPage, home *template.Template
}

func loadPages() (*pages, error) {
	load := func(name string) (*template.Template, error) {
		t, err := template.ParseFS(templateFiles, "templates/layout.html", "templates/"+name)
		if err != nil {
			return nil, fmt.Errorf("authserver: page %s: %w", name, err)
		}
		return t, nil
	}
	var p pages
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

// loginData fills the sign-in page.
type loginData struct {
	Title, CSRF, Username, Error string
}

// consentData fills the consent page.
type consentData struct {
	Title, ClientName, UserName, CSRF string
	Scopes                            []consentScope
}

// consentScope is one checkbox: scope.N = scope.<name>, labelled with the
// group's description; every box starts checked, as in UAA.
type consentScope struct {
	Index int
	Name  string
	Label string
}

type errorData struct{ Title, Message string }

type homeData struct{ Title, UserName string }

// render writes a page; the page is rendered to a buffer first so that a
// template error becomes a clean 500 instead of half a page.
func (s *Server) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		s.log.Error("rendering a page", "err", err)
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

// errorPage shows a problem to the user without redirecting anywhere.
func (s *Server) errorPage(w http.ResponseWriter, status int, title, message string) {
	s.render(w, status, s.pages.errorPage, errorData{Title: title, Message: message})
}
