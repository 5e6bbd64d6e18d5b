package configapp

import (
	"errors"
	"io"
	"net/http"
	"strings"
)

// maxBodyBytes bounds a request body. No endpoint uses one (POST /refresh
// and /bus/refresh take an empty body), so a large body is refused with 413.
const maxBodyBytes = 64 << 10

// endpoint is one route: its security class, its method and its handler.
type endpoint struct {
	operational bool   // guarded by management.security.enabled
	method      string // GET (HEAD implied) or POST
	serve       func(a *App, w http.ResponseWriter, r *http.Request, s *snapshot)
}

var endpoints = map[string]endpoint{
	"/":             {false, http.MethodGet, (*App).serveGreeting},
	"/random-quote": {false, http.MethodGet, (*App).serveQuote},
	"/refresh":      {true, http.MethodPost, (*App).serveRefresh},
	"/bus/refresh":  {true, http.MethodPost, (*App).serveBusRefresh},
	"/env":          {true, http.MethodGet, (*App).serveEnv},
	"/loggers":      {true, http.MethodGet, (*App).serveLoggers},
	"/health":       {true, http.MethodGet, (*App).serveHealth},
}

// actuatorEndpoints are the same at Spring Boot 2's actuator paths, /env
// in Boot 2's shape.
var actuatorEndpoints = map[string]endpoint{
	"/":                    endpoints["/"],
	"/random-quote":        endpoints["/random-quote"],
	"/actuator/refresh":    endpoints["/refresh"],
	"/actuator/busrefresh": endpoints["/bus/refresh"],
	"/actuator/env":        {true, http.MethodGet, (*App).serveActuatorEnv},
	"/actuator/loggers":    endpoints["/loggers"],
	"/actuator/health":     endpoints["/health"],
}

// subpath is an endpoint below a prefix, the rest of the path its value.
type subpath struct {
	prefix, value string
	endpoint
}

var (
	boot1Subpaths    = []subpath{{"/loggers/", loggerName, loggerEndpoint}}
	actuatorSubpaths = []subpath{
		{"/actuator/loggers/", loggerName, loggerEndpoint},
		{"/actuator/busrefresh/", destinationValue, endpoints["/bus/refresh"]},
	}
	loggerEndpoint = endpoint{true, http.MethodGet, (*App).serveLogger}
)

// The path values the subpaths set.
const (
	loggerName       = "name"
	destinationValue = "destination"
)

// route finds the endpoint of a path and sets the value of a subpath; an
// unknown path is treated as an application endpoint, so that it is
// protected as Spring Security's /**.
func (a *App) route(r *http.Request) (endpoint, bool) {
	exact, subpaths := endpoints, boot1Subpaths
	if a.opts.Paths == PathsActuator {
		exact, subpaths = actuatorEndpoints, actuatorSubpaths
	}
	if ep, ok := exact[r.URL.Path]; ok {
		return ep, true
	}
	for _, sp := range subpaths {
		if rest, ok := strings.CutPrefix(r.URL.Path, sp.prefix); ok && rest != "" {
			r.SetPathValue(sp.value, rest)
			return sp.endpoint, true
		}
	}
	return endpoint{}, false
}

// ServeHTTP checks credentials first (as Spring Security's filter does, so
// an anonymous caller learns nothing about routes), then the route and the
// method. The whole request uses one configuration snapshot.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	s := a.current()
	ep, found := a.route(r)
	switch {
	case !a.authorized(r, &s.settings, ep.operational):
		unauthorized(w, r)
	case !found:
		writeError(w, r, http.StatusNotFound, "No handler for "+r.Method+" "+r.URL.Path)
	case !ep.allows(r.Method):
		h.Set("Allow", ep.allow())
		writeError(w, r, http.StatusMethodNotAllowed, "Request method '"+r.Method+"' not supported")
	case !bodyWithinLimit(w, r):
		writeError(w, r, http.StatusRequestEntityTooLarge, "Request body larger than 64 KiB")
	default:
		ep.serve(a, w, r, s)
	}
}

func (ep endpoint) allows(method string) bool {
	return method == ep.method || (ep.method == http.MethodGet && method == http.MethodHead)
}

func (ep endpoint) allow() string {
	if ep.method == http.MethodGet {
		return "GET, HEAD"
	}
	return ep.method
}

// bodyWithinLimit reads and discards the body, up to the limit.
func bodyWithinLimit(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil { // a server request always has one; a direct call may not
		return true
	}
	_, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, maxBodyBytes))
	return !errors.As(err, new(*http.MaxBytesError))
}
