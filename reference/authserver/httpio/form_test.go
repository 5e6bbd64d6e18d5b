package httpio

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

const urlencoded = "application/x-www-form-urlencoded"

// bufferedRequest is a POST as a handler sees it: its body read by LimitBody.
func bufferedRequest(t testing.TB, method, contentType, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, "/check_token", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	if !LimitBody(httptest.NewRecorder(), r) {
		t.Fatalf("LimitBody refused %d bytes", len(body))
	}
	return r
}

// assertSameAsParseForm checks CheckTokenForm against r.PostFormValue on a
// second request of the same method, type and body, and reports whether the
// fast path answered.
func assertSameAsParseForm(t testing.TB, method, contentType, body string) (fast bool) {
	t.Helper()
	_, _, fast = plainForm(bufferedRequest(t, method, contentType, body))
	token, scopes := CheckTokenForm(bufferedRequest(t, method, contentType, body))
	want := bufferedRequest(t, method, contentType, body)
	if wt, ws := want.PostFormValue("token"), want.PostFormValue("scopes"); token != wt || scopes != ws {
		t.Fatalf("%s %q %.80q: token %.80q scopes %.80q, ParseForm: %.80q %.80q (fast path: %v)", method, contentType, body, token, scopes, wt, ws, fast)
	}
	return fast
}

func TestCheckTokenFormIsParseForm(t *testing.T) {
	tk := strings.Repeat("eyJhbGciOiJSUzI1NiJ9.", 40) + "sig-_~"
	tests := []struct {
		method, contentType, body string
		fast                      bool
	}{
		{"POST", urlencoded, "token=" + tk, true},
		{"POST", urlencoded, "token=" + tk + "&scopes=a,b", true},
		{"POST", urlencoded, "scopes=a&token=" + tk + "&scopes=b&token=c", true},
		{"POST", urlencoded, "token&token=" + tk, true},
		{"POST", urlencoded, "&&=x&token==" + tk + "&&", true},
		{"POST", urlencoded, "tokens=x&TOKEN=y&scope=z", true},
		{"POST", urlencoded, "", true},
		{"POST", urlencoded, "token=" + tk + strings.Repeat("&", maxPlainFields-1), true},
		{"POST", urlencoded, "token=" + tk + strings.Repeat("&", maxPlainFields), false},
		{"POST", urlencoded, "token=" + tk + strings.Repeat("&", 10000), false},
		{"POST", urlencoded, "token=a%2Bb", false},
		{"POST", urlencoded, "token=a+b", false},
		{"POST", urlencoded, "token=a%zz&token=b", false},
		{"POST", urlencoded, "token=a;&token=b", false},
		{"POST", urlencoded, "%74oken=a", false},
		{"POST", urlencoded + "; charset=UTF-8", "token=" + tk, false},
		{"POST", "Application/x-www-form-urlencoded", "token=" + tk, false},
		{"POST", "", "token=" + tk, false},
		{"POST", "text/plain", "token=" + tk, false},
		{"PUT", urlencoded, "token=" + tk, false},
		{"POST", "multipart/form-data; boundary=B", "--B\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nabc\r\n--B--\r\n", false},
	}
	for _, tt := range tests {
		if fast := assertSameAsParseForm(t, tt.method, tt.contentType, tt.body); fast != tt.fast {
			t.Errorf("%s %q %.40q: fast path %v, want %v", tt.method, tt.contentType, tt.body, fast, tt.fast)
		}
	}
}

// A body read before, in part or in full, or parsed before, is not read
// again in place.
func TestCheckTokenFormAfterAnEarlierRead(t *testing.T) {
	r := bufferedRequest(t, "POST", urlencoded, "token=abc&scopes=x")
	_, _ = io.ReadFull(r.Body, make([]byte, 4))
	if token, scopes := CheckTokenForm(r); token != "" || scopes != "x" { // the rest: n=abc&scopes=x
		t.Errorf("after a read of 4 bytes: %q %q, want ParseForm's of the rest", token, scopes)
	}
	r = bufferedRequest(t, "POST", urlencoded, "token=abc")
	r.PostForm = map[string][]string{"token": {"parsed"}}
	if token, _ := CheckTokenForm(r); token != "parsed" {
		t.Errorf("after ParseForm: %q", token)
	}
}

// With GODEBUG's urlmaxqueryparams ParseForm may refuse even two fields:
// then every body goes through it.
func TestCheckTokenFormUnderAFieldLimit(t *testing.T) {
	t.Setenv("GODEBUG", "urlmaxqueryparams=2")
	if fast := assertSameAsParseForm(t, "POST", urlencoded, "token=abc&x=y"); fast {
		t.Error("the fast path ignored GODEBUG=urlmaxqueryparams")
	}
}

// A resource server's body costs one allocation: the token's string.
func TestCheckTokenFormAllocations(t *testing.T) {
	r := bufferedRequest(t, "POST", urlencoded, "token="+strings.Repeat("t", 1024))
	body := r.Body.(*bufferedBody)
	n := testing.AllocsPerRun(100, func() {
		if token, _ := CheckTokenForm(r); len(token) != 1024 {
			t.Fatalf("token of %d bytes", len(token))
		}
		body.Reset(body.raw)
	})
	if n > 1 {
		t.Errorf("%v allocations, want 1", n)
	}
}

func FuzzCheckTokenForm(f *testing.F) {
	for _, seed := range []struct{ contentType, body string }{
		{urlencoded, "token=abc&scopes=a,b"},
		{urlencoded, "token&token=x&&=y&scopes"},
		{urlencoded, "token=a%2B+b;c"},
		{urlencoded + ";charset=utf-8", "token=abc"},
		{"multipart/form-data; boundary=B", "--B\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nabc\r\n--B--\r\n"},
	} {
		f.Add(seed.contentType, seed.body)
	}
	f.Fuzz(func(t *testing.T, contentType, body string) {
		if len(body) > MaxBodyBytes {
			return
		}
		assertSameAsParseForm(t, "POST", contentType, body)
	})
}

// LimitBody reads a body with or without a length in full, and one that
// fails is a 400.
func TestLimitBody(t *testing.T) {
	body := strings.Repeat("x", 3000)
	for _, size := range []int64{int64(len(body)), -1, 10} { // given, unknown, wrong
		r := httptest.NewRequest(http.MethodPost, "/", iotest.OneByteReader(strings.NewReader(body)))
		r.ContentLength = size
		if !LimitBody(httptest.NewRecorder(), r) {
			t.Fatalf("size %d: refused", size)
		}
		got, _ := io.ReadAll(r.Body)
		if string(got) != body || r.ContentLength != int64(len(body)) {
			t.Errorf("size %d: read %d bytes, length %d", size, len(got), r.ContentLength)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader("token="), iotest.ErrReader(errors.New("reset"))))
	rec := httptest.NewRecorder()
	if LimitBody(rec, r) || rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "could not be read") {
		t.Errorf("a failing body: %d %s", rec.Code, rec.Body)
	}
}
