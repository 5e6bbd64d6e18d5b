package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestBothWiringsTakeEachServiceFromItsArgs: up (the demo) and up --processes run every service with the flags
// of its one description (service.args) after their own listen flags; those flags parse with the service's own
// flag set, as `serve NAME` parses them, and name the URLs of the services it calls.
func TestBothWiringsTakeEachServiceFromItsArgs(t *testing.T) {
	c := &cli{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	data := t.TempDir()
	bs, err := listen("127.0.0.1", services, func(*service) int { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(bs) })
	urls := make(map[string]string)
	for i, s := range services {
		urls[s.name] = "http://127.0.0.1:" + strconv.Itoa(20001+i)
	}
	demo := &plan{dataDir: data, urls: urls, configRepo: filepath.Join(data, "config-repo"), demo: true}
	procs := &procStack{bin: "/bin/reference", plan: &plan{dataDir: data, urls: urls,
		configRepo: "file://" + filepath.Join(data, "config-repo.git"), redisURL: "redis://127.0.0.1:6379/0",
		brokerURL: "amqp://guest:guest@127.0.0.1:5672/"}}
	for _, b := range bs {
		listenArgs := []string{"--port", "0", "--ready-file", filepath.Join(data, "ready")}
		if b.svc.ownSockets {
			listenArgs = []string{"--port-offset", "2", "--access-log", filepath.Join(data, "access.log")}
		}
		for wiring, args := range map[string][]string{
			"up":             c.demoArgs(b, demo, "127.0.0.1", "info"),
			"up --processes": procs.serveArgs(b.svc.name, listenArgs...)[2:],
		} {
			if err := parseServeFlags(c, b.svc, args); err != nil {
				t.Errorf("%s: serve %s %q: %v", wiring, b.svc.name, args, err)
			}
			for _, called := range calls[b.svc.name] {
				if !slices.Contains(args, urls[called]) && !slices.Contains(args, urls[called]+"/") {
					t.Errorf("%s: serve %s %q does not name %s's URL", wiring, b.svc.name, args, called)
				}
			}
		}
	}
}

// calls are the services whose URLs each service is given.
var calls = map[string][]string{
	"configapp":  {"configserver"},
	"authserver": {"authserver", "greeting", "fortune"},
	"fortune":    {"authserver"},
	"greeting":   {"greeting", "authserver", "fortune"},
}

func parseServeFlags(c *cli, svc *service, args []string) error {
	fs, _, _ := c.serviceFlagSet(svc)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}

// The configuration application's start command in the target file is `serve configapp` with its args in the
// process stack's plan, the configuration server left to the harness.
func TestProcessStackDescribesTheConfigAppWithItsArgs(t *testing.T) {
	st := &procStack{bin: "/opt/it's/reference", plan: &plan{urls: map[string]string{"configserver": "http://127.0.0.1:1"},
		redisURL: "redis://127.0.0.1:6379/0", brokerURL: "amqp://guest:guest@127.0.0.1:5672/"}}
	st.describeConfigApp()
	want := `exec '/opt/it'\''s/reference' serve configapp --port "$TCK_PORT" --name "$TCK_APP_NAME" ` +
		`--config-url "$TCK_CONFIG_URL" --bus 'amqp://guest:guest@127.0.0.1:5672/'`
	if got := st.tg.Services.ConfigApp.Start; got != want {
		t.Errorf("start command\n got %s\nwant %s", got, want)
	}
	if got := st.tg.Services.ConfigApp.Broker; got != "amqp://guest:guest@127.0.0.1:5672/" {
		t.Errorf("broker %q: the target must name the bus's broker (config.bus-spring-wire)", got)
	}
}
