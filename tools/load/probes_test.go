package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Both probes forward a GET and its headers, add x-forwarded-for, and keep
// the connections alive on both sides.
func TestProbesForwardRequestsAndAnswers(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.URL.Path+" "+r.Header.Get("X-Test")+" "+r.Header.Get("X-Forwarded-For"))
		_, _ = io.WriteString(w, "answer")
	}))
	defer up.Close()
	upAddr := strings.TrimPrefix(up.URL, "http://")
	netHTTP := httptest.NewServer(netHTTPProbe(&upstreams{addr: upAddr, idle: make(chan *upConn, 4)}))
	defer netHTTP.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { _ = serveRawProbe(ln, &upstreams{addr: upAddr, idle: make(chan *upConn, 4)}) }()
	for name, url := range map[string]string{"net/http": netHTTP.URL, "raw": "http://" + ln.Addr().String()} {
		for range 3 { // the same connections again
			req, _ := http.NewRequest(http.MethodGet, url+"/path", nil)
			req.Header.Set("X-Test", "yes")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "answer" || resp.Header.Get("X-Seen") != "/path yes 127.0.0.1" {
				t.Fatalf("%s: %d %q seen %q", name, resp.StatusCode, body, resp.Header.Get("X-Seen"))
			}
		}
	}
}
