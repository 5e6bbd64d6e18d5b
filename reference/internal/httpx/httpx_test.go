package httpx

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLoggedRecordsTheStatusTheHandlerAnswered(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rec := httptest.NewRecorder()
	Logged(log, rec, httptest.NewRequest(http.MethodGet, "/a%2Fb", nil), func(w http.ResponseWriter, r *http.Request) {
		WriteBody(w, http.StatusTeapot, "text/plain", []byte("tea"))
		if http.NewResponseController(w).Flush() != nil {
			t.Error("the recorder hides the connection from http.ResponseController")
		}
	})
	if rec.Code != http.StatusTeapot || rec.Body.String() != "tea" || rec.Header().Get("Content-Length") != "3" {
		t.Errorf("answer %d %q %v", rec.Code, rec.Body, rec.Header())
	}
	if !strings.Contains(logs.String(), "status=418") || !strings.Contains(logs.String(), "path=/a%2Fb") {
		t.Errorf("log %q lacks the status or the escaped path", logs.String())
	}
}

func TestEncodeJSONKeepsHTMLCharactersAndEndsTheLine(t *testing.T) {
	got, err := EncodeJSON(map[string]string{"m": "<a&b>"})
	if err != nil || string(got) != "{\"m\":\"<a&b>\"}\n" {
		t.Errorf("EncodeJSON = %q, %v", got, err)
	}
	if _, err := EncodeJSON(func() {}); err == nil {
		t.Error("a value JSON cannot hold encoded without an error")
	}
}

// ReadAll reads what io.ReadAll(io.LimitReader(r, limit)) reads, with or
// without a size, right or wrong.
func TestReadAll(t *testing.T) {
	const limit = 4096
	for _, n := range []int{0, 1, 800, limit - 1, limit, limit + 1, 3 * limit} {
		text := strings.Repeat("x", n)
		want, _ := io.ReadAll(io.LimitReader(strings.NewReader(text), limit))
		for _, size := range []int64{int64(n), -1, 10, int64(2 * n)} {
			for _, r := range []io.Reader{strings.NewReader(text), iotest.HalfReader(strings.NewReader(text))} {
				got, err := ReadAll(r, size, limit)
				if err != nil || string(got) != string(want) {
					t.Errorf("%d bytes, size %d: read %d, %v; want %d", n, size, len(got), err, len(want))
				}
			}
		}
	}
	if _, err := ReadAll(io.MultiReader(strings.NewReader("{"), iotest.ErrReader(errors.New("reset"))), 10, limit); err == nil {
		t.Error("a failing body read without an error")
	}
}

// A body with its size is read into one buffer of that size.
func TestReadAllAllocations(t *testing.T) {
	text := strings.Repeat("x", 900)
	r := strings.NewReader(text)
	n := testing.AllocsPerRun(100, func() {
		r.Reset(text)
		if b, err := ReadAll(r, int64(len(text)), 4096); len(b) != len(text) || err != nil {
			t.Fatalf("%d bytes, %v", len(b), err)
		}
	})
	if n != 1 {
		t.Errorf("%v allocations, want 1", n)
	}
}
