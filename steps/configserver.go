package steps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/cucumber/godog"
	"gopkg.in/yaml.v3"
)

// configServerSteps write the scenario's files into the configuration repository and read them back through
// the configuration server; the repository's clone is the suite's, so they keep no state of their own.
type configServerSteps struct {
	*scenario
}

func (w *configServerSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the repository holds on "([^"]+)" the file "([^"]+)":$`, w.repositoryHolds)
	sc.Step(`^the file "([^"]+)" is removed from "([^"]+)"$`, w.fileRemoved)
	sc.Step(`^the head of "([^"]+)" is tagged "([^"]+)"$`, w.tagHead)
	sc.Step(`^the commit id of "([^"]+)" is remembered as "([a-z][a-z0-9-]*)"$`, w.rememberCommit)
	// The configuration server's requests never carry credentials; the second form says so where it matters.
	sc.Step(`^I fetch the configuration of "([^"]+)" with profile "([^"]+)"(?: without credentials)?$`, w.fetchConfig)
	sc.Step(`^I fetch the configuration of "([^"]+)" with profile "([^"]+)" and label "([^"]+)"$`, w.fetchConfigLabel)
	sc.Step(`^I request "([^"]+)" from the configuration server$`, w.requestConfigPath)
	sc.Step(`^the field "([^"]+)" is the commit id of "([^"]+)"$`, w.fieldIsCommitOf)
	sc.Step(`^the property sources are, highest precedence first:$`, w.propertySourcesAre)
	sc.Step(`^the property source "([^"]+)" holds:$`, w.propertySourceHolds)
	sc.Step(`^no property source comes from a file of "([^"]+)"$`, w.noPropertySourceOf)
	sc.Step(`^the error message names "([^"]+)" and "([^"]+)"$`, w.errorMessageNames)
	sc.Step(`^the answer is a (yml|yaml|properties|json) document holding:$`, w.documentHolds)
}

func (w *configServerSteps) configServer() (*ConfigServer, error) {
	cs := w.suite.env.ConfigServer
	if cs == nil {
		return nil, fmt.Errorf("the target declares no configServer")
	}
	return cs, nil
}

func (w *configServerSteps) repositoryHolds(branch, file string, content *godog.DocString) error {
	branch, file, err := w.expand2(branch, file)
	if err != nil {
		return err
	}
	body, err := w.expand(content.Content + "\n")
	if err != nil {
		return err
	}
	return w.commitFiles(branch, "tck: write "+file, map[string]*string{file: &body})
}

func (w *configServerSteps) fileRemoved(file, branch string) error {
	file, branch, err := w.expand2(file, branch)
	if err != nil {
		return err
	}
	return w.commitFiles(branch, "tck: remove "+file, map[string]*string{file: nil})
}

func (w *configServerSteps) commitFiles(branch, message string, files map[string]*string) error {
	ws, err := w.workspaceOf()
	if err != nil {
		return err
	}
	_, err = ws.commit(branch, message, files)
	return err
}

func (w *configServerSteps) workspaceOf() (*workspace, error) {
	if _, err := w.configServer(); err != nil {
		return nil, err
	}
	return w.suite.workspace()
}

func (w *configServerSteps) tagHead(branch, tag string) error {
	branch, tag, err := w.expand2(branch, tag)
	if err != nil {
		return err
	}
	ws, err := w.workspaceOf()
	if err != nil {
		return err
	}
	return ws.tag(tag, branch)
}

func (w *configServerSteps) rememberCommit(label, name string) error {
	hash, err := w.commitOf(label)
	if err != nil {
		return err
	}
	w.vars[name] = hash
	return nil
}

func (w *configServerSteps) commitOf(label string) (string, error) {
	label, err := w.expand(label)
	if err != nil {
		return "", err
	}
	ws, err := w.workspaceOf()
	if err != nil {
		return "", err
	}
	return ws.head(label)
}

func (w *configServerSteps) fetchConfig(app, profile string) error {
	return w.requestConfigPath("/" + app + "/" + profile)
}

func (w *configServerSteps) fetchConfigLabel(app, profile, label string) error {
	return w.requestConfigPath("/" + app + "/" + profile + "/" + label)
}

// requestConfigPath sends the path as written (after placeholders), without cleaning or re-encoding, so that
// scenarios can send the malformed paths a server must refuse.
func (w *configServerSteps) requestConfigPath(path string) error {
	cs, err := w.configServer()
	if err != nil {
		return err
	}
	path, err = w.expand(path)
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
	return w.do(req)
}

func (w *configServerSteps) fieldIsCommitOf(name, label string) error {
	want, err := w.commitOf(label)
	if err != nil {
		return err
	}
	got, err := w.field(name)
	if err != nil {
		return err
	}
	if got != want {
		return w.failf("field %q is %s, want the commit id of %s: %q", name, mustJSON(got), label, want)
	}
	return nil
}

// propertySource is one entry of propertySources; its name ends with the file it comes from.
type propertySource struct {
	Name   string         `json:"name"`
	Source map[string]any `json:"source"`
}

func (w *configServerSteps) propertySources() ([]propertySource, error) {
	raw, err := w.field("propertySources")
	if err != nil {
		return nil, err
	}
	data, _ := json.Marshal(raw)
	var ps []propertySource
	if err := json.Unmarshal(data, &ps); err != nil {
		return nil, w.failf("propertySources is not a list of {name, source}: %v", err)
	}
	return ps, nil
}

func fileOf(sourceName string) string { return sourceName[strings.LastIndex(sourceName, "/")+1:] }

func (w *configServerSteps) propertySourcesAre(table *godog.Table) error {
	ps, err := w.propertySources()
	if err != nil {
		return err
	}
	var want, got []string
	for _, row := range table.Rows {
		f, err := w.expand(row.Cells[0].Value)
		if err != nil {
			return err
		}
		want = append(want, f)
	}
	for _, p := range ps {
		got = append(got, fileOf(p.Name))
	}
	if !reflect.DeepEqual(want, got) {
		return w.failf("property sources are %v, want %v (names are <repository uri>/<file>)", got, want)
	}
	return nil
}

func (w *configServerSteps) noPropertySourceOf(app string) error {
	app, err := w.expand(app)
	if err != nil {
		return err
	}
	ps, err := w.propertySources()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if f := fileOf(p.Name); strings.HasPrefix(f, app+".") || strings.HasPrefix(f, app+"-") {
			return w.failf("property source %q belongs to %s, which has no files", p.Name, app)
		}
	}
	return nil
}

func (w *configServerSteps) propertySourceHolds(file string, table *godog.Table) error {
	file, err := w.expand(file)
	if err != nil {
		return err
	}
	ps, err := w.propertySources()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if fileOf(p.Name) == file {
			if !strings.Contains(p.Name, "/") {
				return w.failf("property source name %q is not <repository uri>/%s", p.Name, file)
			}
			return w.keysHold(p.Source, table, asJSON)
		}
	}
	return w.failf("no property source is named after %q", file)
}

// valueMode says how a table's values are compared with a document's.
type valueMode int

const (
	asText valueMode = iota // compared as text
	asJSON                  // the table's values are JSON literals (false, 3, "text"), compared as JSON values
)

// keysHold checks a key/value table against flattened keys.
func (w *configServerSteps) keysHold(source map[string]any, table *godog.Table, mode valueMode) error {
	for _, row := range table.Rows[1:] {
		key, want := row.Cells[0].Value, row.Cells[1].Value
		want, err := w.expand(want)
		if err != nil {
			return err
		}
		got, ok := source[key]
		if !ok {
			return w.failf("key %q is missing; keys: %v", key, sortedKeys(source))
		}
		if mode == asJSON {
			wantValue, err := decodeJSON(want)
			if err != nil {
				return fmt.Errorf("the expected value of %s, %s, is not JSON: %w", key, want, err)
			}
			if !jsonEqual(got, wantValue) {
				return w.failf("key %q is %s, want %s", key, mustJSON(got), want)
			}
		} else if fmt.Sprint(got) != want {
			return w.failf("key %q is %q, want %q", key, fmt.Sprint(got), want)
		}
	}
	return nil
}

func (w *configServerSteps) errorMessageNames(a, b string) error {
	a, b, err := w.expand2(a, b)
	if err != nil {
		return err
	}
	msg, err := w.field("message")
	if err != nil {
		return err
	}
	s, _ := msg.(string)
	if !strings.Contains(s, a) || !strings.Contains(s, b) {
		return w.failf("the error message %q does not name both %q and %q", s, a, b)
	}
	return nil
}

// documentHolds reads a flat document (yml, yaml, properties or json) and checks flattened keys as text.
func (w *configServerSteps) documentHolds(format string, table *godog.Table) error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	if a.status != 200 {
		return w.failf("status %d, want 200", a.status)
	}
	flat := map[string]any{}
	switch format {
	case "properties":
		for _, line := range strings.Split(string(a.body), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				flat[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	default: // yml, yaml and json: JSON is YAML, so one decoder reads all three
		var doc any
		if err := yaml.Unmarshal(a.body, &doc); err != nil {
			return w.failf("the body is not %s: %v", format, err)
		}
		flatten("", doc, flat)
	}
	return w.keysHold(flat, table, asText)
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
