package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// target is what one figure drives: one request, sent again and again.
type target struct {
	url     string
	method  string
	headers map[string]string
	body    string
	want    int // the status every answer must have
	// procs are the processes that serve it: their CPU per answer is
	// reported, and the reference services among them are profiled with
	// -profile.
	procs []*proc
}

// result is one load run.
type result struct {
	rps    float64
	ok     int64
	failed int64
	first  error // the first failure, to say why a run does not count
	// cpu is the CPU time the target's processes used while answers were
	// counted; cpuOK is false when it could not be read.
	cpu   time.Duration
	cpuOK bool
	// cpuEach is cpu for each of the target's processes apart.
	cpuEach []time.Duration
}

// err tells why the run cannot give a figure: no answer at all, or more
// than one in a thousand answers wrong.
func (r result) err() error {
	switch {
	case r.ok == 0 && r.first != nil:
		return fmt.Errorf("no good answer: %w", r.first)
	case r.ok == 0:
		return errors.New("no answer")
	case r.failed*1000 > r.ok:
		return fmt.Errorf("%d of %d answers failed, first: %w", r.failed, r.ok+r.failed, r.first)
	}
	return nil
}

// drive keeps conns keep-alive connections busy for d, each sending the
// next request as soon as the answer came (a closed loop, as wrk does), and
// counts the answers. A short warm-up opens the connections first and is
// not counted.
func drive(t target, conns int, d time.Duration) result {
	raw, addr, err := t.encode()
	if err != nil {
		return result{first: err}
	}
	var ok, failed atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) {
		failed.Add(1)
		once.Do(func() { first = err })
	}
	counting := atomic.Bool{}
	ctx, cancel := context.WithTimeout(context.Background(), warmUp+d)
	defer cancel()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() { worker(ctx, addr, raw, t.want, &counting, &ok, fail) })
	}
	time.Sleep(warmUp)
	counting.Store(true)
	start := time.Now()
	cpu0, cpuOK := cpuEach(t.procs)
	n0 := ok.Load()
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, _ := cpuEach(t.procs)
	r := result{rps: float64(ok.Load()-n0) / elapsed.Seconds(), ok: ok.Load() - n0, failed: failed.Load(), first: first, cpuOK: cpuOK}
	if r.cpuOK = cpuOK && len(cpu1) == len(cpu0); r.cpuOK {
		for i := range cpu0 {
			r.cpuEach = append(r.cpuEach, cpu1[i]-cpu0[i])
			r.cpu += cpu1[i] - cpu0[i]
		}
	}
	return r
}

// warmUp opens the connections and fills the caches before counting.
const warmUp = 300 * time.Millisecond

// worker runs requests on one connection, opening a new one when the
// server closes it.
func worker(ctx context.Context, addr string, raw []byte, want int, counting *atomic.Bool, ok *atomic.Int64, fail func(error)) {
	var c net.Conn
	var br *bufio.Reader
	defer func() {
		if c != nil {
			_ = c.Close()
		}
	}()
	for ctx.Err() == nil {
		if c == nil {
			var err error
			if c, err = (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr); err != nil {
				if ctx.Err() == nil {
					fail(err)
					time.Sleep(10 * time.Millisecond)
				}
				continue
			}
			br = bufio.NewReaderSize(c, 16<<10)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		code, keep, err := roundTrip(c, br, raw)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			fail(err)
		case code != want:
			fail(fmt.Errorf("status %d, want %d", code, want))
		case counting.Load():
			ok.Add(1)
		}
		if err != nil || !keep {
			_ = c.Close()
			c = nil
		}
	}
}

// roundTrip sends one request and reads the whole answer.
func roundTrip(c net.Conn, br *bufio.Reader, raw []byte) (code int, keep bool, err error) {
	if _, err := c.Write(raw); err != nil {
		return 0, false, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, false, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, !resp.Close, err
}

// encode writes the request once, as sent on every round trip.
func (t target) encode() ([]byte, string, error) {
	u, err := url.Parse(t.url)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, "", fmt.Errorf("not an http URL: %q", t.url)
	}
	method := t.method
	if method == "" {
		method = http.MethodGet
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: fortune-tck-load\r\n", method, u.RequestURI(), u.Host)
	for k, v := range t.headers {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if t.body != "" || method == http.MethodPost {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(t.body))
	}
	b.WriteString("\r\n")
	b.WriteString(t.body)
	return []byte(b.String()), u.Host, nil
}
