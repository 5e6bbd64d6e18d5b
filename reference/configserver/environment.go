package configserver

import (
	"context"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// environment is the JSON a Spring Cloud Config client expects.
type environment struct {
	Name            string           `json:"name"`
	Profiles        []string         `json:"profiles"`
	Label           string           `json:"label"`
	Version         string           `json:"version"`
	State           *string          `json:"state"`
	PropertySources []propertySource `json:"propertySources"`
}

type propertySource struct {
	Name   string `json:"name"`
	Source *props `json:"source"`
}

// environment fetches, resolves the label and collects the sources.
func (s *Server) environment(ctx context.Context, q query) (*environment, error) {
	repo, commit, err := s.commit(ctx, q.label)
	if err != nil {
		return nil, err
	}
	return s.environmentAt(repo, commit, q)
}

// commit brings the repository up to date, then resolves the label in
// what the answer is to be read from.
func (s *Server) commit(ctx context.Context, label string) (*reader, plumbing.Hash, error) {
	if err := s.fresh.sync(ctx); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	repo := s.reader()
	h, err := repo.resolve(label)
	return repo, h, err
}

// environmentAt collects the sources of a commit.
func (s *Server) environmentAt(repo *reader, commit plumbing.Hash, q query) (*environment, error) {
	key := environmentKey{commit: commit, app: q.app, profiles: strings.Join(q.profiles, ",")}
	sources, ok := s.environments.Get(key, lru.Never)
	if !ok {
		var err error
		if sources, err = s.loadSources(repo, key); err != nil {
			return nil, err
		}
		s.environments.Add(key, sources, lru.Never)
	}
	return &environment{
		Name:            q.app,
		Profiles:        q.profiles,
		Label:           q.label,
		Version:         commit.String(),
		PropertySources: sources,
	}, nil
}

// loadSources reads the matching files of a commit, highest precedence first.
// Files that hold no keys (empty files) contribute no source, as in Spring.
func (s *Server) loadSources(repo *reader, key environmentKey) ([]propertySource, error) {
	files, err := repo.lookup(key.commit, candidateFiles(key.app, strings.Split(key.profiles, ",")))
	if err != nil {
		return nil, err
	}
	sources := make([]propertySource, 0, len(files))
	for _, f := range files {
		p, err := s.parse(repo, f)
		if err != nil {
			return nil, err
		}
		if p.len() > 0 {
			sources = append(sources, propertySource{Name: s.sourcePrefix + f.name, Source: p})
		}
	}
	return sources, nil
}

// parse reads and flattens a file, caching the outcome (errors included) by
// blob hash: an unchanged file is never parsed twice.
func (s *Server) parse(repo *reader, f treeFile) (*props, error) {
	cached, ok := s.files.Get(f.hash, lru.Never)
	if !ok {
		data, err := repo.blob(f.hash)
		if err != nil {
			return nil, &fileError{name: f.name, err: err}
		}
		s.parses.Add(1)
		cached.props, cached.err = parseYAML(data)
		s.files.Add(f.hash, cached, lru.Never)
	}
	if cached.err != nil {
		return nil, &fileError{name: f.name, err: cached.err}
	}
	return cached.props, nil
}

// candidateFiles lists the files to look for, highest precedence first; each
// group is one file with its accepted spellings (.yml before .yaml). As in
// Spring Cloud Config, every profile-specific file outranks every generic
// one, and within the same specificity the application's own file outranks
// the shared "application": {app}-{profile}, application-{profile}, {app},
// application (the last requested profile first).
func candidateFiles(app string, profiles []string) [][]string {
	var groups [][]string
	add := func(stem string) { groups = append(groups, []string{stem + ".yml", stem + ".yaml"}) }
	for _, p := range activeProfiles(profiles) {
		for _, name := range uniqueApps(app) {
			add(name + "-" + p)
		}
	}
	for _, name := range uniqueApps(app) {
		add(name)
	}
	return groups
}

// uniqueApps is the application and the shared "application", once.
func uniqueApps(app string) []string {
	if app == "application" {
		return []string{app}
	}
	return []string{app, "application"}
}

// activeProfiles orders profiles by precedence: the last requested wins.
// "default" selects no profile file; repeats count once, at their last place.
func activeProfiles(profiles []string) []string {
	var active []string
	for _, p := range slices.Backward(profiles) {
		if p != "default" && !slices.Contains(active, p) {
			active = append(active, p)
		}
	}
	return active
}
