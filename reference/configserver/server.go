package configserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// Defaults used when Options leaves a field empty.
const (
	DefaultLabel        = "master"
	DefaultFetchTimeout = 10 * time.Second
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
// opts.LazyClone is set, fetches the repository once so that an unreachable
// or missing repository is reported at start.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.URI == "" {
		return nil, errors.New("configserver: the repository URI is required")
	}
	remote, err := remoteURL(opts.URI)
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
	if s.mirror, err = s.openMirror(opts, remote); err != nil {
		s.Close()
		return nil, err
	}
	if opts.LazyClone {
		return s, nil
	}
	if err := s.mirror.sync(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("configserver: cannot clone %s: %w", redact(opts.URI), unwrapUnavailable(err))
	}
	return s, nil
}

func (s *Server) openMirror(opts Options, remote string) (*mirror, error) {
	dir := opts.BaseDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "configserver-")
		if err != nil {
			return nil, fmt.Errorf("configserver: creating a base directory: %w", err)
		}
		dir, s.tempDir = tmp, tmp
	}
	repo, err := openMirror(dir, remote)
	if err != nil {
		return nil, fmt.Errorf("configserver: %w", err)
	}
	m := &mirror{
		display: redact(opts.URI),
		remote:  remote,
		dir:     dir,
		auth:    authFor(remote, opts.Username, opts.Password),
		timeout: cmp.Or(opts.FetchTimeout, DefaultFetchTimeout),
		log:     s.log,
		repo:    repo,
		trees:   newTreeCache(treeCacheBytes),
	}
	if err := m.countLoose(); err != nil {
		return nil, fmt.Errorf("configserver: %w", err)
	}
	m.fetches.fn = m.fetch
	if isLocal(opts.URI) {
		m.source = newSource(remote)
		m.fetches.fn = m.syncLocal
	}
	refs := m.localRefs()
	m.known.Store(&refs)
	m.hasCopy.Store(holdsCommits(repo))
	return m, nil
}

// Close waits for the local copy's packing, if any is under way, and
// removes the temporary base directory, if New created one.
func (s *Server) Close() error {
	if s.mirror != nil {
		s.mirror.background.Wait()
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
