package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// Instance is one running instance of an application.
type Instance interface {
	URL() string
	// Log is everything the instance has written to its log so far.
	Log() string
	Stop()
}

// StartApp runs one instance of the configuration client application with the application name and
// comma-separated profiles, ready to answer HTTP: both are fixed at start, so every scenario starts the
// instances it needs.
type StartApp func(ctx context.Context, name, profiles string) (Instance, error)

// Area is what the configuration steps of every scenario share: the clone of the configuration repository
// (made on first use), the quote source (started on first use) and the harness's way to start instances.
type Area struct {
	run      *core.Run
	startApp StartApp

	repoOnce sync.Once
	repo     *workspace
	repoErr  error

	quotesOnce sync.Once
	quotes     *quoteSource
	quotesErr  error
}

// New returns the configuration areas of a run; startApp may be nil (no instance can be started).
func New(run *core.Run, startApp StartApp) *Area { return &Area{run: run, startApp: startApp} }

// Bind registers the configuration server's and the application's steps of one scenario, each with state of
// its own.
func (a *Area) Bind(s *core.Scenario, sc *godog.ScenarioContext) {
	(&configServerSteps{Scenario: s, area: a}).register(sc)
	(&configAppSteps{Scenario: s, area: a}).register(sc)
}

// Close removes the clone and stops the quote source.
func (a *Area) Close() {
	if a.repo != nil {
		a.repo.close()
	}
	if a.quotes != nil {
		a.quotes.close()
	}
}

// Preflight checks that the configuration repository can be listed and that its master holds none of the
// shared files the scenarios assume absent; without a configuration server there is nothing to check. Both
// end with ctx (the run's), each git operation within gitTimeout.
func (a *Area) Preflight(ctx context.Context) error {
	cs := a.run.Services().ConfigServer
	if cs == nil {
		return nil
	}
	if err := listable(ctx, a.run, cs.Repository); err != nil {
		return err
	}
	return a.preflightSharedFiles()
}

// workspace returns the shared clone of the configuration repository.
func (a *Area) workspace() (*workspace, error) {
	a.repoOnce.Do(func() {
		a.repo, a.repoErr = openWorkspace(a.run, a.run.Services().ConfigServer.Repository)
	})
	return a.repo, a.repoErr
}

// quoteSource returns the quote source the steps serve to the application, started on first use.
func (a *Area) quoteSource() (*quoteSource, error) {
	a.quotesOnce.Do(func() {
		a.quotes, a.quotesErr = startQuoteSource(a.run.Services().ConfigApp.HarnessHost)
	})
	return a.quotes, a.quotesErr
}

func listable(ctx context.Context, run *core.Run, r target.Repository) error {
	remote := git.NewRemote(memory.NewStorage(), &gitconfig.RemoteConfig{Name: "origin", URLs: []string{gitURL(r.URI)}})
	err := gitOp(ctx, run, "listing the refs of", r.URI, func(ctx context.Context) error {
		_, err := remote.ListContext(ctx, &git.ListOptions{Auth: authOf(r)})
		return err
	})
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return fmt.Errorf("the configuration repository %s has no commit yet: the suite commits its files onto "+
				"master and branches from it; commit one file to master first (a README will do)", redactedURI(r.URI))
		}
		hint := "Check services.configServer.repository in the target file (uri, username, password)"
		if strings.Contains(err.Error(), "dubious ownership") {
			// A local repository goes through git's own upload-pack, which refuses another user's repository.
			hint = "git refuses a repository another user owns: run tck as its owner, or allow it for this run only " +
				"with a git configuration of its own (your global one is then neither read nor changed):\n" +
				"  printf '[safe]\\n\\tdirectory = *\\n[receive]\\n\\tdenyCurrentBranch = ignore\\n' >/tmp/tck.gitconfig\n" +
				"  GIT_CONFIG_GLOBAL=/tmp/tck.gitconfig tck run --target ..."
		}
		return fmt.Errorf("cannot reach the configuration repository %s: %w\n%s", redactedURI(r.URI), err, hint)
	}
	return nil
}
