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
		args:  configServerArgs,
	}
}

// configServerArgs serve the stack's repository, cloned into DATA. The
// demo's is created on first start, so that a person can edit and commit
// there; a conformance run's is made by the process stack (configrepo.go).
func configServerArgs(p *plan) []string {
	args := []string{"--uri", p.configRepo, "--basedir", filepath.Join(p.dataDir, "configserver-cache")}
	if p.demo {
		args = append(args, "--demo-repository")
	}
	return args
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
	return func(ctx context.Context, env buildEnv) (*instance, error) {
		if *uri == "" {
			return nil, usageError{errors.New("--uri is required (the git repository to serve)")}
		}
		created := false
		if *demo {
			var err error
			if created, err = createDemoRepository(*uri, env.log); err != nil {
				return nil, err
			}
		}
		s, err := configserver.New(ctx, configserver.Options{
			URI:          *uri,
			BaseDir:      *baseDir,
			DefaultLabel: *label,
			Username:     *user,
			Password:     cmp.Or(*password, getenv("CONFIG_GIT_PASSWORD")),
			Logger:       env.log,
			LazyClone:    *lazy,
			FetchTimeout: *timeout,
		})
		if err != nil {
			return nil, err
		}
		hints := configServerHints(ownURL(fs))
		if *demo {
			hints = append(hints, demoRepositoryHints(*uri, created)...)
		}
		return &instance{handler: s, close: s.Close, hints: hints}, nil
	}
}

func configServerHints(url string) []string {
	return []string{
		"try:  curl " + url + "/greeting-config/default",
		"      curl " + url + "/greeting-config/dev",
		"      curl " + url + "/greeting-config-dev.yml",
	}
}

func demoRepositoryHints(repo string, created bool) []string {
	return []string{
		"demo repository (" + createdState(created) + "): " + repo,
		"      edit a file there and `git commit`; the next request serves it",
	}
}

// createDemoRepository creates the demo repository at path unless one is
// there: a container stack runs `serve configserver --demo-repository`,
// and `reference up` does too.
func createDemoRepository(path string, log *slog.Logger) (created bool, err error) {
	if !filepath.IsAbs(path) {
		return false, usageError{fmt.Errorf("--demo-repository needs --uri to be an absolute local path, not %q", path)}
	}
	created, err = configserver.CreateDemoRepository(path)
	if created {
		log.Info("created the demo repository", "path", path)
	}
	return created, err
}
