package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestServePprof(t *testing.T) {
	r := start(t, nil, "serve", "quotes", "--port", "0", "--pprof", "127.0.0.1:0")
	r.addr(t)
	url := regexp.MustCompile(`url=(http://\S+/debug/pprof/)`)
	var m []string
	for deadline := time.Now().Add(5 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		m = url.FindStringSubmatch(r.stderr.String())
	}
	if m == nil {
		t.Fatalf("no profiles URL logged:\n%s", r.stderr)
	}
	if code, body := httpGet(t, m[1]+"goroutine?debug=1"); code != 200 || !strings.Contains(body, "goroutine profile:") {
		t.Fatalf("goroutine profile: %d %.200s", code, body)
	}
}

func TestServePprofBadAddress(t *testing.T) {
	code, _, stderr := runCLI("serve", "quotes", "--port", "0", "--pprof", "nowhere")
	if code != exitUsage || !strings.Contains(stderr, "--pprof cannot listen on nowhere") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
