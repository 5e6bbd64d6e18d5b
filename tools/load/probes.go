package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// The probes are the least a Go reverse proxy can do per request, on
// net/http's server and without it. The gateway is built on net/http's
// server (DESIGN.md); the first probe is the most that choice allows, the
// second what leaving it would buy. Both forward requests without a body
// to one upstream over pooled keep-alive connections, adding
// x-forwarded-for, and nothing else: no routing, limits, access log or
// hop-by-hop handling. They are yardsticks for make load, never proxies to
// use.
const (
	netHTTPProbeCommand = "probe-nethttp"
	rawProbeCommand     = "probe-raw"
)

// serveProbe runs the probe named by command: -addr, -upstream.
func serveProbe(command string, args []string) int {
	fs := flag.NewFlagSet(command, flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	upstream := fs.String("upstream", "", "upstream host:port")
	_ = fs.Parse(args)
	pool := &upstreams{addr: *upstream, idle: make(chan *upConn, 1024)}
	var err error
	if command == netHTTPProbeCommand {
		err = http.ListenAndServe(*addr, netHTTPProbe(pool))
	} else {
		var ln net.Listener
		if ln, err = net.Listen("tcp", *addr); err == nil {
			err = serveRawProbe(ln, pool)
		}
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// upConn is a kept-alive connection to the upstream.
type upConn struct {
	c  net.Conn
	br *bufio.Reader
	bw *bufio.Writer
}

// upstreams pools connections to one upstream.
type upstreams struct {
	addr string
	idle chan *upConn
}

func (p *upstreams) get() (*upConn, error) {
	select {
	case u := <-p.idle:
		return u, nil
	default:
	}
	c, err := net.Dial("tcp", p.addr)
	if err != nil {
		return nil, err
	}
	return &upConn{c: c, br: bufio.NewReaderSize(c, 8<<10), bw: bufio.NewWriterSize(c, 8<<10)}, nil
}

func (p *upstreams) put(u *upConn) {
	select {
	case p.idle <- u:
	default:
		u.c.Close()
	}
}

// netHTTPProbe is a handler on net/http's server that writes the request
// to a pooled connection and copies the answer back.
func netHTTPProbe(pool *upstreams) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := pool.get()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		fmt.Fprintf(u.bw, "%s %s HTTP/1.1\r\nHost: %s\r\nX-Forwarded-For: %s\r\n", r.Method, r.RequestURI, r.Host, host)
		_ = r.Header.Write(u.bw)
		_, _ = u.bw.WriteString("\r\n")
		if err := u.bw.Flush(); err != nil {
			u.c.Close()
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp, err := http.ReadResponse(u.br, r)
		if err != nil {
			u.c.Close()
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		h := w.Header()
		for k, v := range resp.Header {
			h[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, err = io.Copy(w, resp.Body)
		resp.Body.Close()
		if err != nil || resp.Close {
			u.c.Close()
			return
		}
		pool.put(u)
	})
}

// serveRawProbe serves HTTP/1.1 on its own: each connection's requests are
// copied line by line to a pooled upstream connection, and the answers,
// whose length Content-Length gives, back.
func serveRawProbe(ln net.Listener, pool *upstreams) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go rawProbeConn(c, pool)
	}
}

func rawProbeConn(c net.Conn, pool *upstreams) {
	defer c.Close()
	br, bw := bufio.NewReaderSize(c, 8<<10), bufio.NewWriterSize(c, 8<<10)
	host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
	xff := []byte("X-Forwarded-For: " + host + "\r\n")
	for {
		if _, err := br.Peek(1); err != nil {
			return
		}
		u, err := pool.get()
		if err != nil {
			return
		}
		if err := rawExchange(br, bw, u, xff); err != nil {
			u.c.Close()
			return
		}
		pool.put(u)
		if err := bw.Flush(); err != nil {
			return
		}
	}
}

// rawExchange sends one request to u and copies its answer to bw.
func rawExchange(br *bufio.Reader, bw *bufio.Writer, u *upConn, xff []byte) error {
	if _, err := copyHead(br, u.bw, xff); err != nil {
		return err
	}
	if err := u.bw.Flush(); err != nil {
		return err
	}
	n, err := copyHead(u.br, bw, nil)
	if err != nil {
		return err
	}
	if n < 0 {
		return errors.New("an answer without Content-Length")
	}
	_, err = io.CopyN(bw, u.br, n)
	return err
}

// copyHead copies a request or status line and its headers to w, adding
// extra before the blank line, and returns the Content-Length (-1 without).
func copyHead(br *bufio.Reader, w *bufio.Writer, extra []byte) (int64, error) {
	n := int64(-1)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 {
			_, _ = w.Write(extra)
			_, err = w.Write(line)
			return n, err
		}
		const cl = "content-length:"
		if len(line) > len(cl) && bytes.EqualFold(line[:len(cl)], []byte(cl)) {
			if n, err = strconv.ParseInt(string(bytes.TrimSpace(line[len(cl):])), 10, 64); err != nil {
				return 0, err
			}
		}
		if _, err := w.Write(line); err != nil {
			return 0, err
		}
	}
}

// probe starts this program again as the probe command in front of up.
func (s *stack) probe(name, command, up string, upErr error) started {
	if upErr != nil {
		return started{err: fmt.Errorf("no upstream: %w", upErr)}
	}
	url, p, err := s.self(name, command, "-upstream", strings.TrimPrefix(up, "http://"))
	return started{t: target{url: url + "/", want: http.StatusOK, procs: []*proc{p}}, err: err}
}
