package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/fortune-tck/fortune-tck/reference/configserver"
)

func configServerService() *service {
	return &service{
		name:    "configserver",
		summary: "configuration server (Spring Cloud Config compatible, git backed)",
		port:    8888,
		notes: fmt.Sprintf("A file of the repository larger than %d MiB is refused: a request that needs it fails\n"+
			"with an error that names the file.\n\n", configserver.MaxFileSize>>20),
		flags: configServerFlags,
		demo:  configServerDemo,
	}
}

func configServerFlags(fs *flag.FlagSet, getenv func(string) string) buildFunc {
	uri := fs.String("uri", "", "git repository to serve: a local path, a file:// URL or an http(s) URL (required)")
	baseDir := fs.String("basedir", "", "directory for the local clone, reused across restarts (default: a temporary directory, removed at exit)")
	label := fs.String("default-label", configserver.DefaultLabel, "label (branch, tag or commit id) served when a request names none")
	user := fs.String("username", "", "user name for an http(s) repository")
	password := fs.String("password", "", "password for an http(s) repository (default: $CONFIG_GIT_PASSWORD)")
	lazy := fs.Bool("lazy-clone", false, "start even if the repository cannot be cloned yet; each request retries (default: fail at start)")
	timeout := fs.Duration("fetch-timeout", configserver.DefaultFetchTimeout, "time limit of one fetch from the repository")
	demo := fs.Bool("demo-repository", false, "when --uri is a local path with nothing there yet, create the demo repository there first, as reference up does (docker-compose.yml uses it)")
	return func(ctx context.Context, log *slog.Logger) (*instance, error) {
		if *uri == "" {
			return nil, usageError{errors.New("--uri is required (the git repository to serve)")}
		}
		if *demo {
			if err := createDemoRepository(*uri, log); err != nil {
				return nil, err
			}
		}
		s, err := configserver.New(ctx, configserver.Options{
			URI:          *uri,
			BaseDir:      *baseDir,
			DefaultLabel: *label,
			Username:     *user,
			Password:     cmp.Or(*password, getenv("CONFIG_GIT_PASSWORD")),
			Logger:       log,
			LazyClone:    *lazy,
			FetchTimeout: *timeout,
		})
		if err != nil {
			return nil, err
		}
		return &instance{handler: s, close: s.Close}, nil
	}
}

// configServerDemo serves the demo repository DIR/config-repo, created on
// first start so a person can edit and commit there.
func configServerDemo(ctx context.Context, st *stack) (*instance, error) {
	repo := filepath.Join(st.dataDir, "config-repo")
	created, err := configserver.CreateDemoRepository(repo)
	if err != nil {
		return nil, err
	}
	s, err := configserver.New(ctx, configserver.Options{
		URI:     repo,
		BaseDir: filepath.Join(st.dataDir, "configserver-cache"),
		Logger:  st.log.With("service", "configserver"),
	})
	if err != nil {
		return nil, err
	}
	state := "existing"
	if created {
		state = "created now"
	}
	url := st.urls["configserver"]
	return &instance{handler: s, close: s.Close, hints: []string{
		"try:  curl " + url + "/greeting-config/default",
		"      curl " + url + "/greeting-config/dev",
		"      curl " + url + "/greeting-config-dev.yml",
		"demo repository (" + state + "): " + repo,
		"      edit a file there and `git commit`; the next request serves it",
	}}, nil
}

// createDemoRepository creates the demo repository at path unless one is
// there: a container stack has no `reference up` to do it on first start.
func createDemoRepository(path string, log *slog.Logger) error {
	if !filepath.IsAbs(path) {
		return usageError{fmt.Errorf("--demo-repository needs --uri to be an absolute local path, not %q", path)}
	}
	created, err := configserver.CreateDemoRepository(path)
	if err != nil {
		return err
	}
	if created {
		log.Info("created the demo repository", "path", path)
	}
	return nil
}
