// Package accesslog writes one JSON object per request, in Envoy Gateway's
// default access-log format: the same keys in the same order, every value a
// string, "-" where Envoy prints "-" (a value that does not exist, such as
// the upstream of a request refused by the rate limit). Unlike Envoy, whose
// default is a text format that looks like JSON, values are escaped, so a
// line is always valid JSON.
package accesslog

import (
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Entry is one request.
type Entry struct {
	Start    time.Time
	Method   string
	Path     string // the request target as received (x-envoy-origin-path)
	Protocol string // HTTP/1.1, HTTP/2
	// Code is the status sent; 0 when none was (the client went away).
	Code    int
	Flags   string // Envoy response flags: RL, RLSE, NR, UF, UC, DC; empty for none
	Details string // Envoy response code details: via_upstream, request_rate_limited...
	// Received and Sent are body bytes.
	Received, Sent int64
	Duration       time.Duration
	// UpstreamTime is the time the upstream took to answer with headers;
	// negative when there was no upstream answer.
	UpstreamTime     time.Duration
	XForwardedFor    string // as sent upstream
	UserAgent        string
	RequestID        string
	Authority        string
	UpstreamHost     string
	UpstreamCluster  string
	UpstreamLocal    string
	DownstreamLocal  string
	DownstreamRemote string
	ServerName       string // TLS SNI
	RouteName        string
}

// Writer writes entries, one line each. As Envoy does with its access-log
// files (--file-flush-interval-msec, 10 s by default, or 64 KiB), lines wait
// in memory and are written together: at most the interval after the first
// of them, as soon as they fill FlushSize, and at Close. One write system
// call per request was a third of the gateway's write calls. A line is never
// split between two writes, so concurrent requests never interleave.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	every  time.Duration // 0: each line at once
	timer  *time.Timer   // armed while lines wait
	closed bool
	// failed is told of an error writing lines the timer wrote.
	failed func(error)
}

// FlushSize is how much waits in memory at most before it is written:
// Envoy's file_flush_min_size_kb.
const FlushSize = 64 << 10

// New returns a Writer to w whose lines wait at most every (0: each line is
// written at once). failed, when not nil, is told of errors writing the
// lines that waited; Write and Close return their own.
func New(w io.Writer, every time.Duration, failed func(error)) *Writer {
	l := &Writer{w: w, every: every, failed: failed}
	if every > 0 {
		l.timer = time.AfterFunc(every, l.flushLater)
		l.timer.Stop()
	}
	return l
}

// Write adds e as one line, written now when the Writer does not buffer,
// is closed or holds FlushSize.
func (l *Writer) Write(e *Entry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	waiting := len(l.buf) > 0
	l.buf = e.AppendJSON(l.buf)
	l.buf = append(l.buf, '\n')
	if l.timer == nil || l.closed || len(l.buf) >= FlushSize {
		return l.flush()
	}
	if !waiting {
		l.timer.Reset(l.every)
	}
	return nil
}

// Close writes the lines that wait; later lines are written at once.
func (l *Writer) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	return l.flush()
}

func (l *Writer) flushLater() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.flush(); err != nil && l.failed != nil {
		l.failed(err)
	}
}

// flush writes what waits in one call. Lines a failed write did not take
// are dropped rather than held: a full disk must not grow the gateway.
func (l *Writer) flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	if cap(l.buf) > 4*FlushSize {
		l.buf = nil // one burst of long lines does not stay in memory
	} else {
		l.buf = l.buf[:0]
	}
	return err
}

// AppendJSON appends e as a JSON object. Numbers and the time are appended
// in place rather than formatted to strings first: the gateway writes one
// entry per request, and these allocations showed in its profile.
func (e *Entry) AppendJSON(b []byte) []byte {
	b = append(b, `{"start_time":"`...)
	b = e.Start.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, '"')
	b = field(b, "method", e.Method, false)
	b = field(b, "x-envoy-origin-path", e.Path, false)
	b = field(b, "protocol", e.Protocol, false)
	b = number(b, "response_code", int64(e.Code))
	b = field(b, "response_flags", e.Flags, false)
	b = field(b, "response_code_details", e.Details, false)
	b = field(b, "connection_termination_details", "", false)
	b = field(b, "upstream_transport_failure_reason", "", false)
	b = number(b, "bytes_received", e.Received)
	b = number(b, "bytes_sent", e.Sent)
	b = number(b, "duration", e.Duration.Milliseconds())
	if e.UpstreamTime < 0 {
		b = field(b, "x-envoy-upstream-service-time", "", false)
	} else {
		b = number(b, "x-envoy-upstream-service-time", e.UpstreamTime.Milliseconds())
	}
	b = field(b, "x-forwarded-for", e.XForwardedFor, false)
	b = field(b, "user-agent", e.UserAgent, false)
	b = field(b, "x-request-id", e.RequestID, false)
	b = field(b, ":authority", e.Authority, false)
	b = field(b, "upstream_host", e.UpstreamHost, false)
	b = field(b, "upstream_cluster", e.UpstreamCluster, false)
	b = field(b, "upstream_local_address", e.UpstreamLocal, false)
	b = field(b, "downstream_local_address", e.DownstreamLocal, false)
	b = field(b, "downstream_remote_address", e.DownstreamRemote, false)
	b = field(b, "requested_server_name", e.ServerName, false)
	b = field(b, "route_name", e.RouteName, false)
	return append(b, '}')
}

// number appends ,"key":"n": Envoy writes every value as a string.
func number(b []byte, key string, n int64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '"')
	b = strconv.AppendInt(b, n, 10)
	return append(b, '"')
}

// field appends "key":"value", with "-" for an empty value.
func field(b []byte, key, value string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...) // keys are plain ASCII
	b = append(b, '"', ':')
	if value == "" {
		value = "-"
	}
	return appendString(b, value)
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	if plain(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// plain tells whether s needs no escaping: the common case, appended at once.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
