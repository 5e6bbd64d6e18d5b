package configserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// demoFiles are the configuration of the demo application greeting-config,
// with the keys of the spec (section 2.6).
var demoFiles = []struct{ name, content string }{
	{"greeting-config.yml", `# Configuration of the application "greeting-config", for every profile.
# Edit, then "git commit": the configuration server serves the change at once;
# a running client picks it up after POST /refresh (or POST /bus/refresh).

greeting:
  # Text of the greeting page.
  message: Hello from the configuration server!
  # When true the greeting page also shows a fortune.
  displayFortune: false

# Where the quote page fetches its quotes from; re-read on refresh.
quoteServiceURL: http://localhost:8081/quotes

logging:
  level:
    # Log level of the client's own classes (ERROR, WARN, INFO, DEBUG).
    com.example: INFO

security:
  basic:
    # HTTP Basic authentication on the application's endpoints.
    enabled: true

management:
  security:
    # Authentication on the operational (actuator) endpoints.
    enabled: true
`},
	{"greeting-config-dev.yml", `# Overrides for the "dev" profile (SPRING_PROFILES_ACTIVE=dev).
# Keys set here win over greeting-config.yml.

greeting:
  # Show a fortune on the greeting page.
  displayFortune: true

logging:
  level:
    # More detail while developing.
    com.example: DEBUG
`},
}

// CreateDemoRepository creates a non-bare git repository in dir holding the
// demo configuration, so a person can edit files and commit there. It
// returns false, and changes nothing, when dir already holds a repository;
// it refuses a non-empty directory that is not one.
func CreateDemoRepository(dir string) (created bool, err error) {
	if _, err := git.PlainOpen(dir); err == nil {
		return false, nil
	} else if !errors.Is(err, git.ErrRepositoryNotExists) {
		return false, fmt.Errorf("opening %s: %w", dir, err)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return false, fmt.Errorf("%s is not empty and not a git repository; choose another directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	if err := commitDemoFiles(dir); err != nil {
		return false, fmt.Errorf("creating the demo repository in %s: %w", dir, err)
	}
	return true, nil
}

func commitDemoFiles(dir string) error {
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(DefaultLabel)},
	})
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	for _, f := range demoFiles {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.content), 0o644); err != nil {
			return err
		}
		if _, err := wt.Add(f.name); err != nil {
			return err
		}
	}
	sig := &object.Signature{Name: "fortune-tck reference", Email: "reference@fortune-tck.invalid", When: time.Now()}
	_, err = wt.Commit("Demo configuration for greeting-config", &git.CommitOptions{Author: sig})
	return err
}
