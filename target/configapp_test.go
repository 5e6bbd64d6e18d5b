package target

import (
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
)

const configAppTarget = "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\n  configApp:\n    start: x\n"

// A broker declares config.bus-spring-wire; paths left out are Spring Boot 1.x's, the ones given are kept.
func TestConfigAppBrokerAndPaths(t *testing.T) {
	tg, err := Parse([]byte(configAppTarget))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Services.ConfigApp.Paths != Boot1Paths || tg.Has(features.CapConfigBusSpringWire) {
		t.Fatalf("defaults: %+v", tg.Services.ConfigApp)
	}
	tg, err = Parse([]byte(configAppTarget + "    broker: amqp://guest:guest@localhost:5672/\n" +
		"    paths: {refresh: /actuator/refresh, busRefreshDestination: '/actuator/busrefresh/{destination}'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := tg.Services.ConfigApp.Paths
	if p.Refresh != "/actuator/refresh" || p.BusRefreshDestination != "/actuator/busrefresh/{destination}" ||
		p.BusRefresh != "/bus/refresh" || p.Env != "/env" || p.Loggers != "/loggers" {
		t.Fatalf("paths %+v", p)
	}
	if !tg.Has(features.CapConfigBusSpringWire) {
		t.Fatal("a broker does not declare config.bus-spring-wire")
	}
	for _, ok := range []string{"amqp://localhost", "amqps://u:p@rabbit.example.org:5671/prod", "amqp://h/%2Fvhost"} {
		if _, err := Parse([]byte(configAppTarget + "    broker: '" + ok + "'\n")); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// A malformed broker URL or path is a mistake naming its field; a broker's password is not repeated.
func TestConfigAppBrokerAndPathMistakes(t *testing.T) {
	for yaml, want := range map[string]string{
		"    broker: http://u:s3cret@h/\n":                           `services.configApp.broker: "http://u:xxxxx@h/" is not an AMQP URL`,
		"    broker: 'amqp://u:s3cret@h:99999/'\n":                   `services.configApp.broker: "amqp://u:xxxxx@h:99999/" has an invalid port`,
		"    broker: 'amqp://u:s3cret@h:x/'\n":                       "services.configApp.broker: not a URL",
		"    broker: 'amqp:///vhost'\n":                              "services.configApp.broker: \"amqp:///vhost\" names no host",
		"    broker: 'amqp://h/a/b'\n":                               "has a path of more than one virtual host",
		"    broker: 'amqp://h/?x=1'\n":                              "has a query or a fragment",
		"    paths: {refresh: actuator/refresh}\n":                   `services.configApp.paths.refresh: "actuator/refresh" is not a path`,
		"    paths: {env: 'http://h/env'}\n":                         `services.configApp.paths.env: "http://h/env" is not a path`,
		"    paths: {busRefreshDestination: /actuator/busrefresh}\n": "services.configApp.paths.busRefreshDestination: \"/actuator/busrefresh\" must hold {destination} once",
		"    paths: {busRefresh: '/busrefresh/{destination}'}\n":     "services.configApp.paths.busRefresh: \"/busrefresh/{destination}\": only busRefreshDestination takes",
		"    paths: {loggers: '/a b'}\n":                             "services.configApp.paths.loggers",
	} {
		_, err := Parse([]byte(configAppTarget + yaml))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v\nwant %q", yaml, err, want)
		}
	}
	_, err := Parse([]byte(configAppTarget + "capabilities: [config.bus-spring-wire]\n"))
	if err == nil || !strings.Contains(err.Error(), "capabilities[0]: config.bus-spring-wire is declared by giving services.configApp.broker") {
		t.Errorf("the capability in the list: %v", err)
	}
}
