package config

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// operationalPath is where the target answers an operational endpoint the scenarios name by the spec's path
// (Spring Boot 1.x's): POST /refresh, POST /bus/refresh[?destination=...], GET /env, GET /loggers[/name]. The
// target's services.configApp.paths say where (Spring Boot 2 and 3 answer under /actuator); any other path is
// sent as it is.
func operationalPath(p target.ConfigAppPaths, path string) string {
	base, query, hasQuery := strings.Cut(path, "?")
	switch {
	case base == "/refresh" && !hasQuery:
		return p.Refresh
	case base == "/bus/refresh" && !hasQuery:
		return p.BusRefresh
	case base == "/bus/refresh":
		v, err := url.ParseQuery(query)
		if err != nil || len(v) != 1 || len(v["destination"]) != 1 {
			return path
		}
		return withDestination(p.BusRefreshDestination, v.Get("destination"))
	case base == "/env":
		return p.Env + strings.TrimPrefix(path, base)
	case base == "/loggers" || strings.HasPrefix(base, "/loggers/"):
		return p.Loggers + strings.TrimPrefix(path, "/loggers")
	}
	return path
}

// withDestination puts the destination where the template says, escaped for a query or a path.
func withDestination(template, dest string) string {
	before, _, _ := strings.Cut(template, target.DestinationPlaceholder)
	escaped := url.PathEscape(dest)
	if strings.Contains(before, "?") {
		escaped = url.QueryEscape(dest)
	}
	return strings.Replace(template, target.DestinationPlaceholder, escaped, 1)
}

// environment is /env as the steps read it, from Spring Boot 1.x's shape {"profiles": [...], "<source>":
// {"<key>": value}} or Spring Boot 2 and 3's {"activeProfiles": [...], "propertySources": [{"name": "<source>",
// "properties": {"<key>": {"value": value}}}]}: the active profiles, and the properties by source.
type environment struct {
	profiles any
	sources  map[string]map[string]any
}

func readEnvironment(obj map[string]any) environment {
	env := environment{sources: map[string]map[string]any{}}
	if list, ok := obj["propertySources"].([]any); ok {
		env.profiles = obj["activeProfiles"]
		for _, item := range list {
			src, _ := item.(map[string]any)
			if props, ok := src["properties"].(map[string]any); ok {
				env.sources[str(src["name"])] = props
			}
		}
		return env
	}
	env.profiles = obj["profiles"]
	for name, v := range obj {
		if props, ok := v.(map[string]any); ok {
			env.sources[name] = props
		}
	}
	return env
}

// environmentHas reads /env: a property must appear in some source, and a masked value must be masked in every
// source that has it.
func (ap *configAppSteps) environmentHas(table *godog.Table) error {
	obj, err := ap.JSONObject()
	if err != nil {
		return err
	}
	env := readEnvironment(obj)
	for _, row := range table.Rows[1:] {
		key, want := row.Cells[0].Value, row.Cells[1].Value
		var seen []string
		for _, src := range slices.Sorted(maps.Keys(env.sources)) {
			if v, ok := env.sources[src][key]; ok {
				seen = append(seen, propertyText(v))
			}
		}
		switch {
		case len(seen) == 0:
			return ap.Failf("/env has no property %q in any property source", key)
		case want == masked && slices.ContainsFunc(seen, func(v string) bool { return v != masked }):
			return ap.Failf("/env shows %q as %q, want it masked as %q in every source", key, seen, masked)
		case !slices.Contains(seen, want):
			return ap.Failf("/env shows %q as %q, want %q", key, seen, want)
		}
	}
	return nil
}

// environmentListsProfiles checks the active profiles /env lists ("profiles" in Boot 1.x, "activeProfiles"
// from Boot 2 on).
func (ap *configAppSteps) environmentListsProfiles(want string) error {
	obj, err := ap.JSONObject()
	if err != nil {
		return err
	}
	wantValue, err := core.DecodeJSON(want)
	if err != nil {
		return err
	}
	got := readEnvironment(obj).profiles
	if core.MustJSON(got) != core.MustJSON(wantValue) {
		return ap.Failf("/env lists the active profiles %s, want %s", core.MustJSON(got), want)
	}
	return nil
}

// masked is what Spring Boot's /env shows in place of a sensitive value.
const masked = "******"

// propertyText is a property value as the feature writes it: a string as is, anything else as JSON; a value
// in Spring Boot 2's shape, {"value": v}, is unwrapped.
func propertyText(v any) string {
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["value"]; ok {
			v = inner
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return core.MustJSON(v)
}
