package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// readyFileEnv names the ready file when --ready-file is not given. The
// container image sets it, so that its HEALTHCHECK (reference health) finds
// the service's URL whatever service and port the command chose.
const readyFileEnv = "REFERENCE_READY_FILE"

// health is a container's health check: the image has no shell or curl, and
// the port is the command's choice, so the service's own ready file says
// where to ask. Any HTTP answer below 500 is healthy (401 without a token is
// the fortune service's normal answer).
func (c *cli) health(ctx context.Context, args []string) int {
	fs := c.newFlagSet("reference health")
	readyFile := fs.String("ready-file", c.getenv(readyFileEnv), "the ready file the service wrote (default: $"+readyFileEnv+")")
	timeout := fs.Duration("timeout", 5*time.Second, "time limit of the request")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: reference health [flags]\n\nExits 0 when the service that wrote the ready file answers HTTP below 500, else 1.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	if *readyFile == "" {
		return c.fail(fs.Name(), usageError{fmt.Errorf("no ready file: give --ready-file or set %s", readyFileEnv)})
	}
	data, err := os.ReadFile(*readyFile)
	if err != nil {
		return c.fail(fs.Name(), fmt.Errorf("not ready: %w", err))
	}
	url := strings.TrimSpace(string(data))
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/", nil)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return c.fail(fs.Name(), err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return c.fail(fs.Name(), fmt.Errorf("%s answered %s", url, resp.Status))
	}
	fmt.Fprintf(c.stdout, "%s answered %s\n", url, resp.Status)
	return exitOK
}
