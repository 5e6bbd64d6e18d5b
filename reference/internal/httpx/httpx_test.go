package httpx

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
