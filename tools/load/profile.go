package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// profiler fetches a CPU profile of every reference service a figure
// drives, over the run (-profile DIR): the profile the issue asks for
// before any change, taken under the very load the figure measures.
type profiler struct {
	dir string
	n   int // runs profiled so far, the files' prefix
}

// during profiles procs while run runs, which takes about d, and writes
// one file per process.
func (pr *profiler) during(d time.Duration, procs []*proc, run func()) {
	procs = slices.DeleteFunc(slices.Clone(procs), func(p *proc) bool { return p.pprof == "" })
	if pr == nil || len(procs) == 0 {
		run()
		return
	}
	pr.n++
	seconds := int(math.Ceil(d.Seconds()))
	var wg sync.WaitGroup
	for _, p := range procs {
		file := filepath.Join(pr.dir, fmt.Sprintf("%02d-%s.pprof", pr.n, slug(p.name)))
		wg.Go(func() {
			if err := fetchProfile(p.pprof, seconds, file); err != nil {
				fmt.Fprintf(os.Stderr, "load: no profile of %s: %v\n", p.name, err)
				return
			}
			fmt.Printf("profile of %s: %s\n", p.name, file)
		})
	}
	run()
	wg.Wait()
}

// fetchProfile saves the CPU profile of the process serving pprof at addr.
func fetchProfile(addr string, seconds int, file string) error {
	c := &http.Client{Timeout: time.Duration(seconds+10) * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, seconds))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// slug is a process name as a file name.
func slug(name string) string {
	return strings.NewReplacer(" ", "-", "(", "", ")", "", ",", "", "/", "-").Replace(name)
}
