package core

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// The limits of every HTTP exchange with the target: a target that never answers, trickles its answer or
// floods it cannot hold the run or fill its memory.
const (
	// RequestTimeout bounds one request, from the dial to the last byte of the body.
	RequestTimeout = 20 * time.Second
	// DialTimeout bounds the connection, TLS handshake included.
	DialTimeout = 10 * time.Second
	// MaxHeaderBytes bounds the headers of an answer: one that sends more fails the request with a message
	// that says so.
	MaxHeaderBytes = 256 << 10
)

// NewHTTPClient is a client that talks only to the origins of the policy and never follows a redirect (a
// redirect is an answer to check). Each request is bounded by RequestTimeout and by its context.
func NewHTTPClient(o *Origins) *http.Client {
	return &http.Client{
		Timeout:   RequestTimeout,
		Transport: NewTransport(o, nil),
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// NewTransport is the transport of every HTTP client of the harness: it refuses a request to an origin the
// policy does not allow before it dials, dials only the addresses of allowed origins (and the proxies the
// environment names for them), and bounds the dial, the TLS handshake, the wait for the headers and their size.
// configure, when given, adjusts the transport (TLS settings).
func NewTransport(o *Origins, configure func(*http.Transport)) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !o.allowsAddr(addr) {
			return nil, fmt.Errorf("dialing %s: not the address of an origin the target file declares", addr)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	t.Proxy = func(req *http.Request) (*url.URL, error) {
		u, err := http.ProxyFromEnvironment(req)
		o.allowProxy(u)
		return u, err
	}
	t.TLSHandshakeTimeout = DialTimeout
	t.ResponseHeaderTimeout = RequestTimeout
	t.MaxResponseHeaderBytes = MaxHeaderBytes
	if configure != nil {
		configure(t)
	}
	return &policyTransport{origins: o, next: t}
}

// policyTransport refuses requests to origins the policy does not allow.
type policyTransport struct {
	origins *Origins
	next    http.RoundTripper
}

func (p *policyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := p.origins.Check(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return p.next.RoundTrip(req)
}
