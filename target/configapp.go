package target

import (
	"cmp"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

func (ca *ConfigApp) validate() []string {
	if ca == nil {
		return nil
	}
	var problems []string
	if strings.TrimSpace(ca.Start) == "" {
		problems = append(problems, "services.configApp.start: required: a shell command that runs one instance "+
			"(it finds TCK_APP_NAME, TCK_PROFILES, TCK_PORT and TCK_CONFIG_URL in its environment)")
	}
	if ca.Broker != "" {
		problems = append(problems, checkBrokerURL("services.configApp.broker", ca.Broker)...)
	}
	p := ca.Paths
	for _, f := range []struct {
		field, path string
		placeholder bool
	}{
		{"refresh", p.Refresh, false}, {"busRefresh", p.BusRefresh, false},
		{"busRefreshDestination", p.BusRefreshDestination, true}, {"env", p.Env, false}, {"loggers", p.Loggers, false},
	} {
		if f.path != "" {
			problems = append(problems, checkPath("services.configApp.paths."+f.field, f.path, f.placeholder)...)
		}
	}
	return problems
}

// checkBrokerURL accepts amqp(s)://[user[:password]@]host[:port][/vhost]; a mistake names the field without
// repeating a password.
func checkBrokerURL(field, raw string) []string {
	const want = "want amqp://user:password@host:port/vhost (or amqps://), e.g. amqp://guest:guest@localhost:5672/"
	u, err := url.Parse(raw)
	if err != nil {
		return []string{fmt.Sprintf("%s: not a URL (%s)", field, want)}
	}
	shown := u.Redacted()
	problem := ""
	if u.Scheme != "amqp" && u.Scheme != "amqps" {
		problem = "is not an AMQP URL"
	} else if u.Hostname() == "" {
		problem = "names no host"
	} else if n, err := strconv.Atoi(cmp.Or(u.Port(), "5672")); err != nil || n < 1 || n > 65535 {
		problem = "has an invalid port"
	} else if u.RawQuery != "" || u.Fragment != "" {
		problem = "has a query or a fragment"
	} else if strings.Contains(strings.TrimPrefix(u.EscapedPath(), "/"), "/") {
		problem = "has a path of more than one virtual host (a / in the name of one is written %2F)"
	}
	if problem != "" {
		return []string{fmt.Sprintf("%s: %q %s: %s", field, shown, problem, want)}
	}
	return nil
}

// checkPath accepts an absolute path (with a query for busRefreshDestination), with {destination} exactly once
// where placeholder says so and nowhere else.
func checkPath(field, path string, placeholder bool) []string {
	u, err := url.Parse(strings.ReplaceAll(path, DestinationPlaceholder, "d"))
	switch {
	case err != nil || !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") || u.Host != "" ||
		strings.ContainsAny(path, " \t\r\n"):
		return []string{fmt.Sprintf("%s: %q is not a path such as /actuator/refresh", field, path)}
	case placeholder && strings.Count(path, DestinationPlaceholder) != 1:
		return []string{fmt.Sprintf("%s: %q must hold %s once, where the destination goes "+
			"(e.g. /actuator/busrefresh/%s or /bus/refresh?destination=%s)", field, path, DestinationPlaceholder,
			DestinationPlaceholder, DestinationPlaceholder)}
	case !placeholder && strings.Contains(path, "{"):
		return []string{fmt.Sprintf("%s: %q: only busRefreshDestination takes a %s", field, path, DestinationPlaceholder)}
	}
	return nil
}

// withDefaults fills the paths left out with Spring Boot 1.x's.
func (p ConfigAppPaths) withDefaults() ConfigAppPaths {
	d := Boot1Paths
	p.Refresh = cmp.Or(p.Refresh, d.Refresh)
	p.BusRefresh = cmp.Or(p.BusRefresh, d.BusRefresh)
	p.BusRefreshDestination = cmp.Or(p.BusRefreshDestination, d.BusRefreshDestination)
	p.Env = cmp.Or(p.Env, d.Env)
	p.Loggers = cmp.Or(p.Loggers, d.Loggers)
	return p
}
