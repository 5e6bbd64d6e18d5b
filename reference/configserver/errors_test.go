package configserver

import (
	"context"
	"log/slog"

	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/syncbuf"
)

func TestBrokenFilesAnswer500NamingFileAndLine(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"good.yml":       "k: v\n",
		"broken.yml":     "a: 1\nb: [unclosed\nc: 3\n",
		"list.yml":       "- a\n- b\n",
		"broken-dev.yml": "a: 1\n  b: 2\n",
	})
	s := newServer(t, Options{URI: o.dir})
	tests := []struct{ path, file, line string }{
		{"/broken/default", "broken.yml", "line "},
		{"/list/default", "list.yml", "line 1"},
		{"/good-dev.yml", "", ""},
		{"/broken-dev.json", "broken-dev.yml", "line 2"},
	}
	for _, tt := range tests {
		rec := get(s, tt.path)
		if tt.file == "" {
			if rec.Code != 200 {
				t.Errorf("GET %s: %d", tt.path, rec.Code)
			}
			continue
		}
		b := decodeError(t, rec)
		if rec.Code != 500 || !strings.Contains(b.Message, tt.file) || !strings.Contains(b.Message, tt.line) {
			t.Errorf("GET %s: %d %q, want the file %s and %q", tt.path, rec.Code, b.Message, tt.file, tt.line)
		}
	}
}

func TestUnknownLabel404(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	for _, path := range []string{"/app/default/nope", "/nope/app-default.yml", "/app/default/deadbeef", "/app/default/a(_)b"} {
		rec := get(s, path)
		b := decodeError(t, rec)
		if rec.Code != 404 || !strings.HasPrefix(b.Message, "No such label: ") {
			t.Errorf("GET %s: %d %+v", path, rec.Code, b)
		}
	}
}

func TestBadRequests400(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	tests := []struct{ path, part, why string }{
		{"/../default", "application", `".."`},
		{"/app/../x", "profile", `".."`},
		{"/app/default/..", "label", `".."`},
		{"/app/default/a..b", "label", `".."`},
		{"/(_)etc(_)passwd/default", "application", "absolute"},
		{"/a(_)..(_)b/default", "application", `".."`},
		{"/a%2Fb/default", "application", "%2F"},
		{"/a%2fb/default", "application", "%2F"},
		{"/app/default/x%2F..", "label", "%2F"},
		{"/a%2E%2E/default", "application", "%2E"},
		{"/app%00/default", "application", "%00"},
		{"/app/dev%0A", "profile", "%0A"},
		{"/app/a%5Cb", "profile", "%5C"},
		{"/app/dev,,db", "profile", "empty"},
		{"/app//x", "profile", "empty"},
		{"/app/default/", "label", "empty"},
		{"/app/default/a~1", "label", "~"},
		{"/app/default/a:b", "label", ":"},
		{"/app/default/@{1}", "label", "%7B"},
		{"/app/default/@", "label", "@{"},
		{"/app/default/.hidden", "label", "start with ."},
		{"/app/default/x.lock", "label", ".lock"},
		{"/x./app-default.yml", "label", "end with"},
		{"/x/app-..yml", "profile", `"."`},
		{"/..-default.yml", "application", `".."`},
		{"/app-%2E%2E.json", "profile", "%2E"},
	}
	for _, tt := range tests {
		rec := get(s, tt.path)
		b := decodeError(t, rec)
		if rec.Code != http.StatusBadRequest || !strings.Contains(b.Message, "Bad "+tt.part) || !strings.Contains(b.Message, tt.why) {
			t.Errorf("GET %s: %d %q, want 400 about the %s (%s)", tt.path, rec.Code, b.Message, tt.part, tt.why)
		}
	}
}

// Characters a client cannot put in a request line still reach ServeHTTP
// from other handlers and tests; they must be refused, not served.
func TestRawControlCharactersAndBackslashes(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	for _, p := range []string{"/app\x00/default", "/app/de\tv", "/a\\b/default", "/app/default/a b", "/app/\xff"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, &http.Request{Method: "GET", URL: &url.URL{Path: p}})
		if rec.Code != http.StatusBadRequest {
			t.Errorf("path %q: %d %s", p, rec.Code, rec.Body)
		}
	}
}

func TestNoRoute404AndMethod405(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	for _, path := range []string{"/", "/app", "/a/b/c/d", "/app-dev.txt"} {
		if rec := get(s, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, rec.Code)
		} else {
			decodeError(t, rec)
		}
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, "PATCH", "OPTIONS"} {
		rec := do(s, m, "/app/default")
		decodeError(t, rec)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d %v", m, rec.Code, rec.Header())
		}
	}
}

func TestNonASCIINamesAreDecoded(t *testing.T) {
	o := newOrigin(t, map[string]string{"café.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	e := getEnv(t, s, "/caf%C3%A9/default")
	if e.Name != "café" || len(e.PropertySources) != 1 {
		t.Fatalf("environment %+v", e)
	}
	if rec := get(s, "/caf%C3/default"); rec.Code != http.StatusBadRequest {
		t.Fatalf("invalid UTF-8: %d", rec.Code)
	}
}

// A failure is logged as an error, unless the caller went away: a load
// generator stopping, or a client timing out, is nothing to look at.
func TestFailuresOfCallersGoneAreNotLoggedAsErrors(t *testing.T) {
	o := newOrigin(t, map[string]string{"broken.yml": "b: [unclosed\n"})
	var logs syncbuf.Buffer
	s := newServer(t, Options{URI: o.dir, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, "http://config.test/broken/default", nil))
	if rec.Code < 500 || strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "caller went away") {
		t.Fatalf("caller gone: %d, logs:\n%s", rec.Code, logs.String())
	}
	if rec := get(s, "/broken/default"); rec.Code != 500 || !strings.Contains(logs.String(), `level=ERROR msg="request failed"`) {
		t.Fatalf("caller waiting: %d, logs:\n%s", rec.Code, logs.String())
	}
}
