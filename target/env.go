package target

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandEnv replaces ${VAR} with the variable's value, so that secrets stay out of target files. Only the
// braced form is expanded: $VAR stays as written, because start and apply commands use $TCK_PORT and the like
// at run time. A ${VAR} that is not set is an error naming its line, not an empty string; ${VAR:-default}, as
// in the shell, gives the default when VAR is unset or empty, so that an example file is valid as written.
func expandEnv(text string) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(text, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		name, hasDefault, def := m[1], m[2] != "", m[3]
		v, ok := os.LookupEnv(name)
		switch {
		case hasDefault && v == "":
			return def
		case !ok:
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		var lines []string
		for _, name := range missing {
			lines = append(lines, fmt.Sprintf("  line %d: ${%s} is not set in the environment", lineOf(text, "${"+name+"}"), name))
		}
		return "", fmt.Errorf("%s", strings.Join(lines, "\n"))
	}
	return out, nil
}

func lineOf(text, sub string) int {
	i := strings.Index(text, sub)
	if i < 0 {
		return 0
	}
	return strings.Count(text[:i], "\n") + 1
}
