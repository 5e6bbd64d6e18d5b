package configserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/fortune-tck/fortune-tck/reference/configserver/localfetch"
	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// Defaults used when Options leaves a field empty.
const (
	DefaultLabel        = "master"
	DefaultFetchTimeout = 10 * time.Second
	// localFetchTimeout is the least a background fetch of a repository
	// on this machine may take: the first one copies the whole history.
	localFetchTimeout = 2 * time.Minute
)

// Cache bounds, in entries.
const (
	environmentCacheSize = 1024
	fileCacheSize        = 4096
)

// Options configures a Server.
type Options struct {
	// URI of the git repository: a local path, a file:// URL or a remote
	// URL (http, https, ssh).
	URI string
	// BaseDir holds the local bare copy; it is reused across restarts when it
	// holds a copy of the same URI. Empty means a temporary directory that
	// Close removes.
	BaseDir string
	// DefaultLabel is served when a request names no label (master).
	DefaultLabel string
	// Username and Password authenticate http(s) fetches when set.
	Username, Password string
	// Logger receives warnings (unreachable remote) and debug request logs;
	// nil discards them.
	Logger *slog.Logger
	// LazyClone makes New succeed without reaching the repository; the first
	// request clones it instead (and every request retries). Without it, New
	// fails when the repository cannot be cloned.
	LazyClone bool
	// FetchTimeout bounds one fetch (default 10s).
	FetchTimeout time.Duration
}

// Server serves configuration from the repository; it is an http.Handler.
type Server struct {
	log          *slog.Logger
	defaultLabel string
	sourcePrefix string // "<uri>/" in front of each file name
	mirror       *mirror
	fresh        *freshness
	reader       func() *reader // what answers are read from, once fresh
	background   *background    // fetches a repository on this machine; nil for a remote one
	tempDir      string

	environments *lru.Cache[environmentKey, []propertySource]
	files        *lru.Cache[plumbing.Hash, parsedFile]
	answers      *lru.Cache[answerKey, []byte]
	parses       atomic.Int64 // YAML files parsed; tests read it to prove caching
}

type environmentKey struct {
	commit   plumbing.Hash
	app      string
	profiles string
}

type parsedFile struct {
	props *props
	err   error
}

// New opens (or creates) the local copy in opts.BaseDir and, unless
// opts.LazyClone is set, brings it up to date once so that an unreachable
// or missing repository is reported at start.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.URI == "" {
		return nil, errors.New("configserver: the repository URI is required")
	}
	remote, local, err := remoteURL(opts.URI)
	if err != nil {
		return nil, err
	}
	s := &Server{
		log:          orDiscard(opts.Logger),
		defaultLabel: cmp.Or(opts.DefaultLabel, DefaultLabel),
		sourcePrefix: strings.TrimSuffix(redact(opts.URI), "/") + "/",
		environments: lru.New[environmentKey, []propertySource](environmentCacheSize),
		files:        lru.New[plumbing.Hash, parsedFile](fileCacheSize),
		answers:      lru.New[answerKey, []byte](environmentCacheSize),
	}
	if err := s.open(opts, remote, local); err != nil {
		s.Close()
		return nil, err
	}
	if opts.LazyClone {
		return s, nil
	}
	if err := s.fresh.sync(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("configserver: cannot clone %s: %w", redact(opts.URI), unwrapUnavailable(err))
	}
	return s, nil
}

// open opens the mirror and its source: the repository read in place when
// it is on this machine (the mirror fetched in the background), else
// fetched before each request.
func (s *Server) open(opts Options, remoteURL string, isLocal bool) error {
	dir := opts.BaseDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "configserver-")
		if err != nil {
			return fmt.Errorf("configserver: creating a base directory: %w", err)
		}
		dir, s.tempDir = tmp, tmp
	}
	m, err := openMirror(dir, remoteURL)
	if err != nil {
		return fmt.Errorf("configserver: %w", err)
	}
	s.mirror = m
	fetch := &remote{url: remoteURL, display: redact(opts.URI), auth: authFor(remoteURL, opts.Username, opts.Password),
		timeout: cmp.Or(opts.FetchTimeout, DefaultFetchTimeout), log: s.log, mirror: m}
	update := fetch.update
	s.reader = func() *reader { return m.reader }
	if isLocal {
		var ctx context.Context
		s.background, ctx = newBackground(redact(opts.URI), s.log, fetch.update)
		fetch.ctx, fetch.timeout, fetch.inProcess = ctx, max(fetch.timeout, localFetchTimeout), !localfetch.GitInstalled()
		l := &local{path: remoteURL, mirror: m, background: s.background}
		l.current.Store(m.reader)
		update, s.reader = l.update, l.current.Load
	}
	s.fresh = newFreshness(redact(opts.URI), s.log, update, m.hasCopy)
	return nil
}

// Close stops the background fetch of a repository on this machine, and
// removes the temporary base directory, if New created one.
func (s *Server) Close() error {
	if s.background != nil {
		s.background.close()
	}
	if s.tempDir == "" {
		return nil
	}
	return os.RemoveAll(s.tempDir)
}

func authFor(remote, user, password string) transport.AuthMethod {
	if user == "" && password == "" {
		return nil
	}
	if !strings.HasPrefix(remote, "http://") && !strings.HasPrefix(remote, "https://") {
		return nil
	}
	return &githttp.BasicAuth{Username: user, Password: password}
}

// redact hides a password written into the URI before it is shown to
// clients or logged.
func redact(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.User == nil {
		return uri
	}
	return u.Redacted()
}

func unwrapUnavailable(err error) error {
	var ue *unavailableError
	if errors.As(err, &ue) {
		return ue.err
	}
	return err
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// remoteURL is the URL go-git should fetch from, or the absolute path of a
// repository on this machine (a path or a file:// URL: local), so that
// reading it does not depend on the working directory.
func remoteURL(uri string) (url string, local bool, err error) {
	ep, err := transport.NewEndpoint(uri)
	if err != nil {
		return "", false, fmt.Errorf("repository URI %q: %w", uri, err)
	}
	if ep.Protocol != "file" {
		return uri, false, nil
	}
	abs, err := filepath.Abs(ep.Path)
	if err != nil {
		return "", false, fmt.Errorf("repository path %q: %w", ep.Path, err)
	}
	return abs, true, nil
}
