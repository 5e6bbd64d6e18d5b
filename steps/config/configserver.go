// Package config holds the steps of the configuration areas: the configuration server and the repository the
// steps commit to (configserver.go, with gitrepo.go: the shared clone), and the configuration client
// application (configapp.go, with quotes.go: the quote source the steps serve to it).
package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// configServerSteps write the scenario's files into the configuration repository and read them back through
// the configuration server; the repository's clone is the suite's. What they keep is what the scenario changed
// in the repository, to take it back when the scenario ends.
type configServerSteps struct {
	*core.Scenario
	area *Area
	mu   sync.Mutex
	// branches are the branches the scenario created (deleted at its end); written are the files it wrote on
	// other branches, by branch, with what each held before (nil: absent), until they are put back.
	branches map[string]bool
	written  map[string]map[string]*string
	// commits are the scenario's own commits, by branch, in order.
	commits map[string][]string
}

func (srv *configServerSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the repository holds on "([^"]+)" the file "([^"]+)":$`, srv.repositoryHolds)
	sc.Step(`^the file "([^"]+)" is removed from "([^"]+)"$`, srv.fileRemoved)
	sc.Step(`^the head of "([^"]+)" is tagged "([^"]+)"$`, srv.tagHead)
	sc.Step(`^the commit id of "([^"]+)" is remembered as "([a-z][a-z0-9-]*)"$`, srv.rememberCommit)
	sc.Step(`^the commit id of "([^"]+)" is remembered as "([a-z][a-z0-9-]*)", and its first (\d+) characters as "([a-z][a-z0-9-]*)"$`,
		srv.rememberCommitAbbreviated)
	// The configuration server's requests never carry credentials; the second form says so where it matters.
	sc.Step(`^I fetch the configuration of "([^"]+)" with profile "([^"]+)"(?: without credentials)?$`, srv.fetchConfig)
	sc.Step(`^I fetch the configuration of "([^"]+)" with profile "([^"]+)" and label "([^"]+)"$`, srv.fetchConfigLabel)
	sc.Step(`^I request "([^"]+)" from the configuration server$`, srv.requestConfigPath)
	sc.Step(`^the field "([^"]+)" is the commit id of "([^"]+)"$`, srv.fieldIsCommitOf)
	sc.Step(`^the property sources are, highest precedence first:$`, srv.propertySourcesAre)
	sc.Step(`^the property source "([^"]+)" holds:$`, srv.propertySourceHolds)
	sc.Step(`^no property source comes from a file of "([^"]+)"$`, srv.noPropertySourceOf)
	sc.Step(`^the error message names "([^"]+)" and "([^"]+)"$`, srv.errorMessageNames)
	sc.Step(`^the answer is a (yml|yaml|properties|json) document holding:$`, srv.documentHolds)
}

// preflightSharedFiles checks that master of the configuration repository holds none of the shared files the
// configuration scenarios assume absent: application.yml and application-<profile>.yml (in any of the spellings
// a configuration server reads) apply to every application, so one on master adds a property source, or a
// setting such as security.basic.enabled, to every scenario's answers and instances. Such a repository is one
// error of the run that names the files, not a list of failed scenarios. Without a configuration server, or
// with a repository that has no master yet, there is nothing to check.
func (a *Area) preflightSharedFiles() error {
	cs := a.run.Services().ConfigServer
	if cs == nil {
		return nil
	}
	ws, err := a.workspace()
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	}
	if err != nil {
		return err
	}
	names, ok, err := ws.rootFiles("master")
	if err != nil {
		return fmt.Errorf("listing master of the configuration repository %s: %w", cs.Repository.URI, err)
	}
	if !ok {
		return nil
	}
	var shared []string
	for _, name := range names {
		if isSharedConfigFile(name) {
			shared = append(shared, name)
		}
	}
	if len(shared) == 0 {
		return nil
	}
	slices.Sort(shared)
	which, them := shared[0], "it"
	if len(shared) > 1 {
		which, them = strings.Join(shared[:len(shared)-1], ", ")+" and "+shared[len(shared)-1], "them"
	}
	return fmt.Errorf("the configuration repository's master (%s) already holds %s, which the scenarios assume "+
		"absent: shared files apply to every application, so every scenario would see %s in its answers.\n"+
		"Point services.configServer.repository at a repository dedicated to the suite, or remove %s from master "+
		"(git rm %s, then commit and push)", cs.Repository.URI, which, them, them, strings.Join(shared, " "))
}

// sharedConfigExtensions are the file types a configuration server reads (Spring Cloud Config reads all four).
var sharedConfigExtensions = []string{".yml", ".yaml", ".properties", ".json"}

// isSharedConfigFile tells the files of the shared application "application": application.<ext> and
// application-<profile>.<ext>.
func isSharedConfigFile(name string) bool {
	for _, ext := range sharedConfigExtensions {
		if stem, ok := strings.CutSuffix(name, ext); ok {
			return stem == "application" || (strings.HasPrefix(stem, "application-") && stem != "application-")
		}
	}
	return false
}

func (srv *configServerSteps) configServer() (*target.ConfigServer, error) {
	cs := srv.Services().ConfigServer
	if cs == nil {
		return nil, fmt.Errorf("the target declares no configServer")
	}
	return cs, nil
}

func (srv *configServerSteps) repositoryHolds(branch, file string, content *godog.DocString) error {
	branch, file, err := srv.Expand2(branch, file)
	if err != nil {
		return err
	}
	body, err := srv.Expand(content.Content + "\n")
	if err != nil {
		return err
	}
	return srv.commitFiles(branch, "tck: write "+file, map[string]*string{file: &body})
}

func (srv *configServerSteps) fileRemoved(file, branch string) error {
	file, branch, err := srv.Expand2(file, branch)
	if err != nil {
		return err
	}
	return srv.commitFiles(branch, "tck: remove "+file, map[string]*string{file: nil})
}

func (srv *configServerSteps) commitFiles(branch, message string, files map[string]*string) error {
	ws, err := srv.workspaceOf()
	if err != nil {
		return err
	}
	res, err := ws.commit(branch, message, files)
	if err != nil {
		return err
	}
	srv.mu.Lock()
	if srv.commits == nil {
		srv.commits = map[string][]string{}
	}
	srv.commits[branch] = append(srv.commits[branch], res.hash)
	srv.mu.Unlock()
	srv.undoCommit(ws, branch, res)
	return nil
}

// removalTimeout bounds one push that takes back what a scenario changed in the repository.
const removalTimeout = time.Minute

// undoCommit registers what a commit changed, to be taken back when the scenario ends: a branch the commit
// created is deleted, and the files it wrote on another branch are put back as they were before the scenario
// (removed, for the files it added), by one commit per branch. master is never deleted, even when the
// scenario's commit started it in an empty repository: it is the repository's default branch, which other
// scenarios share.
func (srv *configServerSteps) undoCommit(ws *workspace, branch string, res commitResult) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	uri := srv.Services().ConfigServer.Repository.URI
	if srv.branches[branch] {
		return
	}
	if res.created && branch != "master" {
		if srv.branches == nil {
			srv.branches = map[string]bool{}
		}
		srv.branches[branch] = true
		srv.Created(fmt.Sprintf("the branch %s of %s", branch, uri), func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, removalTimeout)
			defer cancel()
			return ws.deleteRef(ctx, plumbing.NewBranchReferenceName(branch))
		})
		return
	}
	if srv.written == nil {
		srv.written = map[string]map[string]*string{}
	}
	if srv.written[branch] == nil {
		srv.written[branch] = map[string]*string{}
	}
	for _, name := range slices.Sorted(maps.Keys(res.before)) {
		if _, seen := srv.written[branch][name]; seen {
			continue
		}
		srv.written[branch][name] = res.before[name]
		srv.Created(fmt.Sprintf("the file %s the scenario wrote on %s of %s", name, branch, uri), func(ctx context.Context) error {
			return srv.putBack(ctx, ws, branch)
		})
	}
}

// putBack restores every file the scenario wrote on a branch with one commit; the first of the branch's
// removals does it, and the others find nothing left to do.
func (srv *configServerSteps) putBack(ctx context.Context, ws *workspace, branch string) error {
	srv.mu.Lock()
	files := maps.Clone(srv.written[branch])
	srv.mu.Unlock()
	if len(files) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, removalTimeout)
	defer cancel()
	if err := ws.restore(ctx, branch, "tck: take back the files of "+srv.Names.App, files); err != nil {
		return err
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for name := range files {
		delete(srv.written[branch], name)
	}
	return nil
}

func (srv *configServerSteps) workspaceOf() (*workspace, error) {
	if _, err := srv.configServer(); err != nil {
		return nil, err
	}
	return srv.area.workspace()
}

func (srv *configServerSteps) tagHead(branch, tag string) error {
	branch, tag, err := srv.Expand2(branch, tag)
	if err != nil {
		return err
	}
	ws, err := srv.workspaceOf()
	if err != nil {
		return err
	}
	if err := ws.tag(tag, branch); err != nil {
		return err
	}
	srv.Created(fmt.Sprintf("the tag %s of %s", tag, srv.Services().ConfigServer.Repository.URI), func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, removalTimeout)
		defer cancel()
		return ws.deleteRef(ctx, plumbing.NewTagReferenceName(tag))
	})
	return nil
}

func (srv *configServerSteps) rememberCommit(label, name string) error {
	hash, err := srv.commitOf(label)
	if err != nil {
		return err
	}
	srv.Vars[name] = hash
	return nil
}

// rememberCommitAbbreviated remembers a commit id and its first n characters, as git abbreviates it.
func (srv *configServerSteps) rememberCommitAbbreviated(label, name string, n int, short string) error {
	if err := srv.rememberCommit(label, name); err != nil {
		return err
	}
	full := srv.Vars[name]
	if n < 4 || n >= len(full) {
		return fmt.Errorf("an abbreviated commit id has 4 to %d characters, not %d", len(full)-1, n)
	}
	srv.Vars[short] = full[:n]
	return nil
}

func (srv *configServerSteps) commitOf(label string) (string, error) {
	label, err := srv.Expand(label)
	if err != nil {
		return "", err
	}
	ws, err := srv.workspaceOf()
	if err != nil {
		return "", err
	}
	return ws.head(label)
}

func (srv *configServerSteps) fetchConfig(app, profile string) error {
	return srv.requestConfigPath("/" + app + "/" + profile)
}

func (srv *configServerSteps) fetchConfigLabel(app, profile, label string) error {
	return srv.requestConfigPath("/" + app + "/" + profile + "/" + label)
}

// requestConfigPath sends the path as written (after placeholders), without cleaning or re-encoding, so that
// scenarios can send the malformed paths a server must refuse.
func (srv *configServerSteps) requestConfigPath(path string) error {
	cs, err := srv.configServer()
	if err != nil {
		return err
	}
	path, err = srv.Expand(path)
	if err != nil {
		return err
	}
	u, err := url.Parse(cs.URL)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = "", ""
	u.Opaque = "//" + u.Host + path
	// Built by hand: the exchange core would parse the URL again and might send the path cleaned.
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("building the request for %s: %w", path, err)
	}
	return srv.Do(req)
}

func (srv *configServerSteps) fieldIsCommitOf(name, label string) error {
	want, err := srv.commitOf(label)
	if err != nil {
		return err
	}
	got, err := srv.Field(name)
	if err != nil {
		return err
	}
	if got == want {
		return nil
	}
	// Other scenarios, running at the same time, commit to a shared branch (master): its head may have moved
	// on after the answer. The answer is right when it names a commit of the branch that holds every commit
	// this scenario made to it.
	label, _ = srv.Expand(label)
	if hash, ok := got.(string); ok && srv.commitIsCurrentFor(label, hash, want) {
		return nil
	}
	return srv.Failf("field %q is %s, want the commit id of %s: %q (or one after this scenario's last commit to it)",
		name, core.MustJSON(got), label, want)
}

// commitIsCurrentFor tells whether hash is in the history of the branch's head and comes after (or is) each
// commit this scenario made to the branch.
func (srv *configServerSteps) commitIsCurrentFor(branch, hash, head string) bool {
	ws, err := srv.workspaceOf()
	if err != nil {
		return false
	}
	if ok, err := ws.isAncestor(hash, head); err != nil || !ok {
		return false
	}
	srv.mu.Lock()
	own := slices.Clone(srv.commits[branch])
	srv.mu.Unlock()
	for _, c := range own {
		if ok, err := ws.isAncestor(c, hash); err != nil || !ok {
			return false
		}
	}
	return true
}

// propertySource is one entry of propertySources; its name ends with the file it comes from.
type propertySource struct {
	Name   string         `json:"name"`
	Source map[string]any `json:"source"`
}

func (srv *configServerSteps) propertySources() ([]propertySource, error) {
	raw, err := srv.Field("propertySources")
	if err != nil {
		return nil, err
	}
	data, _ := json.Marshal(raw)
	var ps []propertySource
	if err := json.Unmarshal(data, &ps); err != nil {
		return nil, srv.Failf("propertySources is not a list of {name, source}: %v", err)
	}
	return ps, nil
}

func fileOf(sourceName string) string { return sourceName[strings.LastIndex(sourceName, "/")+1:] }

func (srv *configServerSteps) propertySourcesAre(table *godog.Table) error {
	ps, err := srv.propertySources()
	if err != nil {
		return err
	}
	var want, got []string
	for _, row := range table.Rows {
		f, err := srv.Expand(row.Cells[0].Value)
		if err != nil {
			return err
		}
		want = append(want, f)
	}
	for _, p := range ps {
		got = append(got, fileOf(p.Name))
	}
	if !reflect.DeepEqual(want, got) {
		return srv.Failf("property sources are %v, want %v (names are <repository uri>/<file>)", got, want)
	}
	return nil
}

func (srv *configServerSteps) noPropertySourceOf(app string) error {
	app, err := srv.Expand(app)
	if err != nil {
		return err
	}
	ps, err := srv.propertySources()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if f := fileOf(p.Name); strings.HasPrefix(f, app+".") || strings.HasPrefix(f, app+"-") {
			return srv.Failf("property source %q belongs to %s, which has no files", p.Name, app)
		}
	}
	return nil
}

func (srv *configServerSteps) propertySourceHolds(file string, table *godog.Table) error {
	file, err := srv.Expand(file)
	if err != nil {
		return err
	}
	ps, err := srv.propertySources()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if fileOf(p.Name) == file {
			if !strings.Contains(p.Name, "/") {
				return srv.Failf("property source name %q is not <repository uri>/%s", p.Name, file)
			}
			return srv.keysHold(p.Source, table, asJSON)
		}
	}
	return srv.Failf("no property source is named after %q", file)
}

// valueMode says how a table's values are compared with a document's.
type valueMode int

const (
	asText valueMode = iota // compared as text
	asJSON                  // the table's values are JSON literals (false, 3, "text"), compared as JSON values
)

// keysHold checks a key/value table against flattened keys.
func (srv *configServerSteps) keysHold(source map[string]any, table *godog.Table, mode valueMode) error {
	for _, row := range table.Rows[1:] {
		key, want := row.Cells[0].Value, row.Cells[1].Value
		want, err := srv.Expand(want)
		if err != nil {
			return err
		}
		got, ok := source[key]
		if !ok {
			return srv.Failf("key %q is missing; keys: %v", key, slices.Sorted(maps.Keys(source)))
		}
		if mode == asJSON {
			wantValue, err := core.DecodeJSON(want)
			if err != nil {
				return fmt.Errorf("the expected value of %s, %s, is not JSON: %w", key, want, err)
			}
			if !core.JSONEqual(got, wantValue) {
				return srv.Failf("key %q is %s, want %s", key, core.MustJSON(got), want)
			}
		} else if fmt.Sprint(got) != want {
			return srv.Failf("key %q is %q, want %q", key, fmt.Sprint(got), want)
		}
	}
	return nil
}

func (srv *configServerSteps) errorMessageNames(a, b string) error {
	a, b, err := srv.Expand2(a, b)
	if err != nil {
		return err
	}
	msg, err := srv.Field("message")
	if err != nil {
		return err
	}
	s, _ := msg.(string)
	if !strings.Contains(s, a) || !strings.Contains(s, b) {
		return srv.Failf("the error message %q does not name both %q and %q", s, a, b)
	}
	return nil
}

// formatTypes is what the Content-Type of each flat document holds (Spring Cloud Config answers text/yaml,
// text/plain and application/json; some servers say application/x-yaml).
var formatTypes = map[string]string{"yml": "yaml", "yaml": "yaml", "properties": "text/plain", "json": "json"}

// documentHolds reads a flat document (yml, yaml, properties or json) and checks flattened keys as text. An
// answer of another type (the JSON of /{app}/{profile}/{label} for a path the server read so) is said to be
// one, with its status and type, rather than read as the document.
func (srv *configServerSteps) documentHolds(format string, table *godog.Table) error {
	a, err := srv.Answer()
	if err != nil {
		return err
	}
	ct := a.Header.Get("Content-Type")
	if a.Status != 200 {
		return srv.Failf("status %d (Content-Type %q), want 200 and a %s document", a.Status, ct, format)
	}
	if want := formatTypes[format]; ct != "" && !strings.Contains(strings.ToLower(ct), want) {
		return srv.Failf("the answer is %q, not a %s document (want a Content-Type with %q): the server took the "+
			"path for another of its forms", ct, format, want)
	}
	flat := map[string]any{}
	switch format {
	case "properties":
		for _, line := range strings.Split(string(a.Body), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				flat[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	default: // yml, yaml and json: JSON is YAML, so one decoder reads all three
		var doc any
		if err := yaml.Unmarshal(a.Body, &doc); err != nil {
			return srv.Failf("the body (status %d, Content-Type %q) is not %s: %v", a.Status, ct, format, err)
		}
		flatten("", doc, flat)
	}
	return srv.keysHold(flat, table, asText)
}

// flatten turns a nested document into Spring's flattened keys: a.b for maps, a[0] for lists.
func flatten(prefix string, v any, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, x, out)
		}
	case []any:
		for i, x := range t {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), x, out)
		}
	default:
		out[prefix] = v
	}
}
