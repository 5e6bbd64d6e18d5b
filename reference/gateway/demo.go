package gateway

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// The demo configuration of `reference up`.
const (
	DemoHostname  = "fortune.example.local"
	DemoHTTPPort  = 10080
	DemoHTTPSPort = 10443
	// DemoUserHeader is the header the demo policy counts by: 3 per minute
	// for each distinct value.
	DemoUserHeader = "x-user-id"
)

//go:embed demo/*.yaml
var demoFiles embed.FS

// demoBackend points the demo route at the quote source of the running
// stack; it is written at every start, since that address can change.
const demoBackend = `# Written by reference up at every start: the quote source of the running stack.
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata:
  name: quotes
spec:
  endpoints:
    - ip:
        address: %s
        port: %d
`

// WriteDemo fills dir with the demo configuration when dir does not exist
// or is empty (created tells), leaving a person's edits alone otherwise,
// and (re)writes backend.yaml with the address of the quote source.
func WriteDemo(dir, quotesAddr string) (created bool, err error) {
	host, portText, err := net.SplitHostPort(quotesAddr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || net.ParseIP(host) == nil {
		return false, fmt.Errorf("gateway demo: quote source address %q is not ip:port", quotesAddr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	if len(entries) == 0 {
		if err := copyDemo(dir); err != nil {
			return false, err
		}
		created = true
	}
	backend := fmt.Sprintf(demoBackend, host, port)
	return created, os.WriteFile(filepath.Join(dir, "backend.yaml"), []byte(backend), 0o644)
}

func copyDemo(dir string) error {
	files, err := fs.ReadDir(demoFiles, "demo")
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := demoFiles.ReadFile("demo/" + f.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
