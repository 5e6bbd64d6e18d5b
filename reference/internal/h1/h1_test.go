package h1

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// getThrough sends a GET through t and reads the answer whole; reused tells
// whether it went over a kept-alive connection.
func getThrough(tb testing.TB, t *Transport, url string) (body string, reused bool) {
	tb.Helper()
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	})
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := t.RoundTrip(req)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		tb.Fatal(err)
	}
	return string(b), reused
}

func TestKeepsConnections(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		if r.URL.Path == "/trailer" {
			w.Header().Set("Trailer", "X-Sum")
			fmt.Fprint(w, "chunk")
			w.(http.Flusher).Flush()
			w.Header().Set("X-Sum", "5")
			return
		}
		fmt.Fprint(w, r.URL.Path)
	}))
	defer srv.Close()
	tr := newTestTransport()
	defer tr.CloseIdleConnections()

	if body, reused := getThrough(t, tr, srv.URL+"/a"); body != "/a" || reused {
		t.Fatalf("first: %q reused=%v", body, reused)
	}
	if body, reused := getThrough(t, tr, srv.URL+"/b"); body != "/b" || !reused {
		t.Fatalf("second: %q reused=%v, want a kept-alive connection", body, reused)
	}
	// An answer with Connection: close takes its connection with it.
	getThrough(t, tr, srv.URL+"/close")
	if _, reused := getThrough(t, tr, srv.URL+"/c"); reused {
		t.Fatal("a connection the backend closed was used again")
	}
	// A chunked answer with a trailer: the trailer is read, and the connection serves on.
	req, _ := http.NewRequest("GET", srv.URL+"/trailer", nil)
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "chunk" || res.Trailer.Get("X-Sum") != "5" {
		t.Fatalf("%q trailer %v", b, res.Trailer)
	}
	if body, reused := getThrough(t, tr, srv.URL+"/d"); body != "/d" || !reused {
		t.Fatalf("after the trailer: %q reused=%v", body, reused)
	}
}

// A backend that closes a kept-alive connection while it is idle: the
// next request goes once more, on a new connection.
func TestRetriesAConnectionClosedWhileIdle(t *testing.T) {
	ln := rawServer(t, func(c net.Conn) {
		// One answer, kept alive by its headers, then the connection is closed.
		_, _ = http.ReadRequest(bufio.NewReader(c))
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	tr := newTestTransport()
	defer tr.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + "/"
	for i := range 3 {
		if body, _ := getThrough(t, tr, url); body != "ok" {
			t.Fatalf("request %d: %q", i, body)
		}
	}
}

// A body closed before its end (the client went away) closes the
// connection at once, however long the backend would go on.
func TestBodyClosedEarly(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for {
			fmt.Fprint(w, strings.Repeat("x", 1024))
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	tr := newTestTransport()
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", srv.URL+"/endless", nil)
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(res.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { res.Body.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("closing an endless body did not return")
	}
	if _, err := res.Body.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after close: %v", err)
	}
}

// The client that goes away ends the wait for a backend that does not answer.
func TestClientGone(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	tr := newTestTransport()
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/slow", nil)
	time.AfterFunc(50*time.Millisecond, cancel)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.RoundTrip(req)
		errc <- err
	}()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("an answer from a backend that never answered")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the request outlived its client")
	}
}

func TestInline(t *testing.T) {
	endless := io.NopCloser(strings.NewReader("a stream"))
	for _, c := range []struct {
		name string
		req  func() *http.Request
		want bool
	}{
		{"GET", func() *http.Request { return newReq("GET", "http://b/", nil) }, true},
		{"HEAD", func() *http.Request { return newReq("HEAD", "http://b/", nil) }, true},
		{"POST of a form", func() *http.Request { return newReq("POST", "http://b/", strings.NewReader("a=b")) }, true},
		{"a stream", func() *http.Request { return newReq("POST", "http://b/", endless) }, false},
		{"HTTPS", func() *http.Request { return newReq("GET", "https://b/", nil) }, false},
		{"a WebSocket", func() *http.Request {
			r := newReq("GET", "http://b/", nil)
			r.Header.Set("Upgrade", "websocket")
			return r
		}, false},
		{"a body over the limit", func() *http.Request {
			return newReq("PUT", "http://b/", strings.NewReader(strings.Repeat("x", maxInlineBody+1)))
		}, false},
	} {
		if got := inline(c.req()); got != c.want {
			t.Errorf("%s: inline %v, want %v", c.name, got, c.want)
		}
	}
}

func newReq(method, url string, body io.Reader) *http.Request {
	r, err := http.NewRequest(method, url, body)
	if err != nil {
		panic(err)
	}
	return r
}

func newTestTransport() *Transport {
	return New(&http.Transport{MaxIdleConnsPerHost: 8, IdleConnTimeout: time.Minute})
}

// A POST is never sent twice: a kept-alive connection the server closed
// while idle is found closed before the request is written, and a new one
// carries it; a connection that fails after the request was written fails
// the request.
func TestPostNeverGoesTwice(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	ln := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			b, _ := io.ReadAll(req.Body)
			mu.Lock()
			got[string(b)]++
			mu.Unlock()
			switch req.URL.Path {
			case "/then-close": // answers, kept alive by its headers, then closes while idle
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				time.Sleep(50 * time.Millisecond)
				return
			case "/no-answer": // reads the request and closes
				return
			default:
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}
		}
	})
	tr := newTestTransport()
	defer tr.CloseIdleConnections()
	base := "http://" + ln.Addr().String()
	post := func(path, body string) (*http.Response, error) {
		return tr.RoundTrip(newReq("POST", base+path, strings.NewReader(body)))
	}
	res, err := post("/then-close", "one")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	time.Sleep(200 * time.Millisecond) // the server has closed the idle connection
	if res, err = post("/", "two"); err != nil {
		t.Fatalf("a POST after the server closed an idle connection: %v", err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if _, err := post("/no-answer", "three"); err == nil {
		t.Fatal("an answer from a server that closed without one")
	}
	mu.Lock()
	defer mu.Unlock()
	if got["one"] != 1 || got["two"] != 1 || got["three"] != 1 {
		t.Fatalf("requests the server received: %v", got)
	}
}

// rawServer serves each connection with serve on a loopback port, and
// closes the connection when serve returns: a server that says exactly
// what a test needs, on the wire.
func rawServer(t *testing.T, serve func(net.Conn)) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln
}

// A request the fallback would send through a proxy goes to the proxy.
func TestProxiedGoesThroughTheFallback(t *testing.T) {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "via the proxy for "+r.Host)
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	tr := New(&http.Transport{Proxy: http.ProxyURL(proxyURL)})
	defer tr.CloseIdleConnections()
	if body, _ := getThrough(t, tr, "http://origin.example/"); body != "via the proxy for origin.example" {
		t.Fatalf("%q", body)
	}
}

// A trace gets the connection's two ends, as the server sees them.
func TestTraceNamesTheConnectionsEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.RemoteAddr) }))
	defer srv.Close()
	tr := newTestTransport()
	defer tr.CloseIdleConnections()
	for range 2 { // dialled, then kept alive
		var local, remote string
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotConn: func(i httptrace.GotConnInfo) {
				local, remote = i.Conn.LocalAddr().String(), i.Conn.RemoteAddr().String()
			},
		})
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		seen, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if remote != strings.TrimPrefix(srv.URL, "http://") || local != string(seen) {
			t.Fatalf("ends %s -> %s; the server at %s saw %s", local, remote, srv.URL, seen)
		}
	}
}
