package fortune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// Server is the fortune service; it is an http.Handler.
type Server struct {
	log       *slog.Logger
	validator validator
	needs     []endpoint // what the validator will look up, for Discover
	audience  string
	fortunes  *picker
}

// New builds the service. It makes no call to the authorization server:
// the services of a stack may start in any order.
func New(opts Options) (*Server, error) {
	return newServer(opts, time.Now)
}

// newServer is New with the clock of expiry checks and the cache, which
// tests move.
func newServer(opts Options, now func() time.Time) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	v, needs := newValidator(opts, now)
	return &Server{log: opts.Logger, validator: v, needs: needs, audience: opts.Audience, fortunes: newPicker()}, nil
}

// newValidator returns the validator of opts and the addresses it will
// look up.
func newValidator(opts Options, now func() time.Time) (validator, []endpoint) {
	e := newEndpoints(opts)
	var v validator
	var needs []endpoint
	switch opts.Validation {
	case ValidateJWT:
		jwks, issuer := e.get(opts.JWKSURL, "jwks_uri"), e.issuer()
		keys := &keySet{url: jwks, client: opts.HTTPClient, timeout: opts.Timeout, interval: opts.KeyRefetchInterval, now: now}
		return newVerifiedCache(&jwtValidator{keys: keys, issuer: issuer, now: now}, jwtCacheSize, now), []endpoint{jwks, issuer}
	case ValidateIntrospection:
		introspect := e.get(opts.IntrospectionURL, "introspection_endpoint")
		v = newIntrospectionValidator(opts, introspect, now)
		needs = []endpoint{introspect}
	default:
		checkToken := e.get(opts.CheckTokenURL, "check_token_endpoint")
		v = newCheckTokenValidator(opts, checkToken)
		needs = []endpoint{checkToken}
	}
	if opts.CacheSize > 0 {
		v = newCachedValidator(v, opts.CacheSize, opts.CacheTTL, now)
	}
	return v, needs
}

// Discover looks up now what the service would look up on its first
// request: the discovery document, when the endpoints come from one. An
// error names the document's URL and what is wrong with it (unreachable,
// another issuer, the endpoint missing). Without discovery it does nothing.
// Serving does not need it: the first request fetches the document.
func (s *Server) Discover(ctx context.Context) error {
	for _, need := range s.needs {
		if _, err := need(ctx); err != nil {
			return fmt.Errorf("fortune: %w", err)
		}
	}
	return nil
}

// ServeHTTP answers a fortune to an authorized GET or HEAD, and logs the
// request at debug level.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.Logged(s.log, w, r, s.serve)
}

// serve checks the token before the method, so that an anonymous caller
// learns nothing but that a token is needed.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	info, err := s.authorize(r)
	if err != nil {
		s.refuse(w, r, err)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "method_not_allowed", Description: r.Method + " is not supported; use GET"})
		return
	}
	if s.log.Enabled(r.Context(), slog.LevelDebug) { // the arguments cost an allocation even when not logged
		s.log.Debug("fortune", "client_id", info.ClientID, "user_name", info.UserName)
	}
	writeFortune(w, s.fortunes.pick())
}

// authorize validates the request's token and requires fortunes.read.
func (s *Server) authorize(r *http.Request) (*tokenInfo, error) {
	token, err := bearerToken(r.Header)
	if err != nil {
		return nil, err
	}
	info, err := s.validator.validate(r.Context(), token)
	if err != nil {
		return nil, err
	}
	if s.audience != "" && !slices.Contains(info.Aud, s.audience) {
		return nil, invalidToken("Token was not recognised: it is not for the audience " + s.audience)
	}
	if !info.hasScope(RequiredScope) {
		return nil, errInsufficientScope
	}
	return info, nil
}

// refuse answers a refusal, or 503 when the token could not be checked;
// the latter is logged, unless the caller went away meanwhile.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if ref, ok := errors.AsType[*refusal](err); ok {
		writeRefusal(w, ref)
		return
	}
	if r.Context().Err() == nil {
		s.log.Error("cannot validate the token; answering 503", "err", err)
	}
	writeJSON(w, http.StatusServiceUnavailable, errorBody{
		Error:       "temporarily_unavailable",
		Description: "The token cannot be validated now: the authorization server is not available",
	})
}

func writeFortune(w http.ResponseWriter, fortune string) {
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteBody(w, http.StatusOK, "text/plain; charset=utf-8", []byte(fortune+"\n"))
}
