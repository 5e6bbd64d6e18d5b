package fortune

import (
	"encoding/json"
	"errors"
	"hash/maphash"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/internal/lru"
)

// A decoded answer is remembered by its bytes: the same bytes get the same
// decoding, other bytes their own, bad bytes an error every time.
func TestDecodedAnswers(t *testing.T) {
	d := newDecodedAnswers()
	a := []byte(`{"scope":["fortunes.read"],"client_id":"a"}`)
	first, err := d.decode(a)
	if err != nil || first.ClientID != "a" || !first.hasScope(RequiredScope) {
		t.Fatalf("%+v %v", first, err)
	}
	if again, _ := d.decode(slices.Clone(a)); again != first {
		t.Error("the same answer was decoded again")
	}
	if other, _ := d.decode([]byte(`{"scope":["fortunes.read"],"client_id":"b"}`)); other.ClientID != "b" {
		t.Errorf("another answer got %+v", other)
	}
	for range 2 {
		if _, err := d.decode([]byte(`{"scope":5}`)); err == nil {
			t.Fatal("a bad answer decoded")
		}
	}
	// Two answers of one hash (forced here) are told apart by their bytes.
	b := []byte(`{"scope":["fortunes.read"],"client_id":"c"}`)
	d.cache.Add(maphash.Bytes(d.seed, b), decodedAnswer{body: a, info: first}, lru.Never)
	if got, _ := d.decode(b); got.ClientID != "c" {
		t.Errorf("an answer of the same hash got %+v", got)
	}
}

// An answer larger than check_token's ever are is decoded, not kept.
func TestDecodedAnswersKeepsNoLargeAnswer(t *testing.T) {
	d := newDecodedAnswers()
	pad := strings.Repeat(" ", maxDecodedAnswerBytes)
	for _, body := range []string{`{"scope":["fortunes.read"]}` + pad[:maxDecodedAnswerBytes-27], `{"scope":["fortunes.read"]}` + pad} {
		info, err := d.decode([]byte(body))
		if err != nil || !info.hasScope(RequiredScope) {
			t.Fatalf("%d bytes: %+v %v", len(body), info, err)
		}
	}
	if n := d.cache.Len(); n != 1 {
		t.Errorf("%d answers kept, want 1 (the one of %d bytes)", n, maxDecodedAnswerBytes)
	}
}

// A remembered answer costs no decoding.
func TestDecodedAnswersHitAllocatesNothing(t *testing.T) {
	d := newDecodedAnswers()
	a := []byte(`{"scope":["openid","fortunes.read"],"aud":["fortunes"],"exp":4102444800,"client_id":"c"}`)
	_, _ = d.decode(a)
	if n := testing.AllocsPerRun(100, func() { _, _ = d.decode(a) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// oldStringList is stringList's decoding before arrays were told apart by
// their first byte: string first, then array.
func oldStringList(b []byte) ([]string, error) {
	if string(b) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		return strings.Fields(s), nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, errors.New("want a string or an array of strings")
	}
	return a, nil
}

func assertStringListAsBefore(t *testing.T, raw string) {
	t.Helper()
	want, wantErr := oldStringList([]byte(raw))
	var got stringList
	err := got.UnmarshalJSON([]byte(raw))
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) ||
		!slices.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("%q: %#v %v, before %#v %v", raw, got, err, want, wantErr)
	}
}

func TestStringListAsBefore(t *testing.T) {
	for _, raw := range []string{
		`null`, ` null`, `"a b"`, `""`, `"  "`, `["a","b"]`, `[]`, ` ["a"]`, "\n[\"a\"]", `["a",1]`, `[null]`, `["a"`,
		`5`, `{}`, `true`, `"a" "b"`, ``, ` `, `[`, `"\u0061 b"`, `["\u0061"]`, "\v\"a\"",
	} {
		assertStringListAsBefore(t, raw)
	}
}

func FuzzStringList(f *testing.F) {
	for _, seed := range []string{`null`, `"a b"`, `["a","b"]`, ` [1]`, `{"a":1}`} {
		f.Add(seed)
	}
	f.Fuzz(assertStringListAsBefore)
}

// Introspection form-encodes the credentials before HTTP Basic (RFC 6749
// 2.3.1), check_token sends them as they are.
func TestBasicCredentials(t *testing.T) {
	opts := Options{ClientID: "fort:une", ClientSecret: "s%c+ret ü"}
	basic := func(id, secret string) string {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.SetBasicAuth(id, secret)
		return r.Header.Get("Authorization")
	}
	if got := newIntrospectionValidator(opts, nil, nil).authorization; got != basic(url.QueryEscape(opts.ClientID), url.QueryEscape(opts.ClientSecret)) {
		t.Errorf("introspection: %q", got)
	}
	if got := newCheckTokenValidator(opts, nil).authorization; got != basic(opts.ClientID, opts.ClientSecret) {
		t.Errorf("check_token: %q", got)
	}
}
