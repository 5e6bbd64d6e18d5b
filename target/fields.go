package target

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var typeOfTarget = reflect.TypeOf(Target{})

// unknownFields walks a decoded YAML mapping against the struct it fills and names every key the struct does not
// have, with its full path and the keys that would be accepted. yaml.v3's own KnownFields error names Go types,
// which mean nothing to the author of a target file.
func unknownFields(node *yaml.Node, path string, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || node.Kind != yaml.MappingNode || t == reflect.TypeOf(Duration(0)) {
		return nil
	}
	fields := map[string]reflect.Type{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		name := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		fields[name] = t.Field(i).Type
		names = append(names, name)
	}
	var problems []string
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, value := node.Content[i].Value, node.Content[i+1]
		field := join(path, key)
		ft, ok := fields[key]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: unknown field (line %d); known here: %s",
				field, node.Content[i].Line, strings.Join(names, ", ")))
			continue
		}
		problems = append(problems, unknownFields(value, field, ft)...)
	}
	return problems
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var yamlLine = regexp.MustCompile(`line (\d+): cannot unmarshal !!(\w+) (?:` + "`([^`]*)`" + ` )?into (\S+)`)

// typeProblems turns yaml.v3 type errors into lines that name the field (its path, from paths: the field path of
// every line of the document) and the line, and the expected kind of value.
func typeProblems(err error, paths map[int]string) []string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []string{err.Error()}
	}
	out := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		if m := yamlLine.FindStringSubmatch(e); m != nil {
			where := "line " + m[1]
			var line int
			fmt.Sscan(m[1], &line)
			if p := paths[line]; p != "" {
				where = fmt.Sprintf("%s (line %d)", p, line)
			}
			value := m[2]
			if m[3] != "" {
				value += fmt.Sprintf(" %q", m[3])
			}
			out = append(out, fmt.Sprintf("%s: %s where %s was expected", where, value, goKind(m[4])))
			continue
		}
		out = append(out, e)
	}
	return out
}

// fieldPaths maps each line of a document to the path of the field written there (capabilities[2],
// services.gateway.instances[0].http): the innermost key a line holds, or the list item that starts it.
func fieldPaths(node *yaml.Node, path string, out map[int]string) map[int]string {
	if out == nil {
		out = map[int]string{}
	}
	switch node.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			field := join(path, node.Content[i].Value)
			out[node.Content[i].Line] = field
			fieldPaths(node.Content[i+1], field, out)
		}
	case yaml.SequenceNode:
		for i, item := range node.Content {
			field := fmt.Sprintf("%s[%d]", path, i)
			if out[item.Line] == "" { // an item on its own line; one of a flow list belongs to its key's line
				out[item.Line] = field
			}
			fieldPaths(item, field, out)
		}
	}
	return out
}

func goKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case goType == "string", goType == "features.Capability": // the registry's names are strings in the file
		return "a string"
	case strings.HasPrefix(goType, "target.") || strings.HasPrefix(goType, "*target."):
		return "a mapping"
	}
	return goType
}
