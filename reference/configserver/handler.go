package configserver

import (
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// query is a parsed, validated configuration request.
type query struct {
	app      string
	profiles []string // as requested
	label    string   // the default label when none was given
}

// docFormats are the flat-document extensions and their content types.
var docFormats = []struct{ ext, contentType string }{
	{".yml", "text/yaml; charset=utf-8"},
	{".yaml", "text/yaml; charset=utf-8"},
	{".json", "application/json"},
	{".properties", "text/plain; charset=utf-8"},
}

// ServeHTTP routes over the escaped path by hand: http.ServeMux would clean
// ".." and %2F away or redirect, where this server must answer 400.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.Logged(s.log, w, r, s.serve)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.writeError(w, r, &httpError{http.StatusMethodNotAllowed, "Request method '" + r.Method + "' is not supported; use GET"})
		return
	}
	path := r.URL.EscapedPath()
	if path == "/health" {
		writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
		return
	}
	q, ext, err := s.route(path)
	if err == nil && ext == "" {
		err = s.serveEnvironment(w, r, q)
	} else if err == nil {
		err = s.serveDocument(w, r, q, ext)
	}
	if err != nil {
		s.writeError(w, r, err)
	}
}

// route parses the path; ext is empty for an environment request and the
// document extension otherwise.
func (s *Server) route(path string) (q query, ext string, err error) {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return q, "", notFound("No route for %q", path)
	}
	switch segs := strings.Split(rest, "/"); len(segs) {
	case 1:
		if stem, ext := splitDoc(segs[0]); ext != "" {
			q, err = s.parseQuery(stem[0], stem[1], "", false)
			return q, ext, err
		}
	case 2:
		if stem, ext := splitDoc(segs[1]); ext != "" {
			q, err = s.parseQuery(stem[0], stem[1], segs[0], true)
			return q, ext, err
		}
		q, err = s.parseQuery(segs[0], segs[1], "", false)
		return q, "", err
	case 3:
		q, err = s.parseQuery(segs[0], segs[1], segs[2], true)
		return q, "", err
	}
	return q, "", notFound("No route for %q", path)
}

// splitDoc splits "{app}-{profiles}.{ext}" at the last hyphen, as Spring
// does; ext is empty when the segment is not a document name.
func splitDoc(seg string) ([2]string, string) {
	for _, f := range docFormats {
		stem, ok := strings.CutSuffix(seg, f.ext)
		if !ok {
			continue
		}
		if i := strings.LastIndexByte(stem, '-'); i >= 0 {
			return [2]string{stem[:i], stem[i+1:]}, f.ext
		}
	}
	return [2]string{}, ""
}

func (s *Server) parseQuery(app, profiles, label string, hasLabel bool) (query, error) {
	var q query
	var err error
	if q.app, err = decodeName("application", app); err != nil {
		return q, err
	}
	for _, p := range strings.Split(profiles, ",") {
		name, err := decodeName("profile", p)
		if err != nil {
			return q, err
		}
		q.profiles = append(q.profiles, name)
	}
	q.label = s.defaultLabel
	if hasLabel {
		q.label, err = decodeLabel(label)
	}
	return q, err
}

func decodeLabel(escaped string) (string, error) {
	label, err := decodeName("label", escaped)
	if err != nil {
		return "", err
	}
	if why := badRefName(label); why != "" {
		return "", badRequest("Bad label %q: %s", escaped, why)
	}
	return label, nil
}

// serveEnvironment looks the answer up as soon as the commit is known:
// building the environment of a cached answer only to name it cost a tenth
// of the handler.
func (s *Server) serveEnvironment(w http.ResponseWriter, r *http.Request, q query) error {
	repo, commit, err := s.commit(r.Context(), q.label)
	if err != nil {
		return err
	}
	key := answerKey{commit: commit, app: q.app, profiles: strings.Join(q.profiles, ","), label: q.label}
	body, ok := s.answers.Get(key, lru.Never)
	if !ok {
		if body, err = s.encodeEnvironment(repo, commit, q); err != nil {
			return err
		}
		s.answers.Add(key, body, lru.Never)
	}
	httpx.WriteBody(w, http.StatusOK, "application/json", body)
	return nil
}

func (s *Server) encodeEnvironment(repo *reader, commit plumbing.Hash, q query) ([]byte, error) {
	env, err := s.environmentAt(repo, commit, q)
	if err != nil {
		return nil, err
	}
	return httpx.EncodeJSON(env)
}

// answerKey names an encoded environment: the same commit, names and label
// always give the same bytes (a profile holds no comma), and encoding a few
// hundred properties was a third of the cost of a request.
type answerKey struct {
	commit               plumbing.Hash
	app, profiles, label string
}

func (s *Server) serveDocument(w http.ResponseWriter, r *http.Request, q query, ext string) error {
	env, err := s.environment(r.Context(), q)
	if err != nil {
		return err
	}
	body, err := renderDocument(mergeSources(env.PropertySources), ext)
	if err != nil {
		return err
	}
	httpx.WriteBody(w, http.StatusOK, contentType(ext), body)
	return nil
}

func contentType(ext string) string {
	for _, f := range docFormats {
		if f.ext == ext {
			return f.contentType
		}
	}
	return "application/octet-stream"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := httpx.EncodeJSON(v)
	if err != nil {
		status, body = http.StatusInternalServerError,
			[]byte(`{"status":500,"error":"Internal Server Error","message":"cannot encode the response"}`+"\n")
	}
	httpx.WriteBody(w, status, "application/json", body)
}
