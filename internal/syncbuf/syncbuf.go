// Package syncbuf is a buffer that goroutines may write and read at once: tests hand it to a service as its
// log or access log and read it while the service runs.
package syncbuf

import (
	"bufio"
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// Buffer collects what is written to it; the zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines returns the lines that contain s.
func (b *Buffer) Lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// Logger is a debug-level text logger that writes into the buffer.
func (b *Buffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
