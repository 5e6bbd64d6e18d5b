package negotiate

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWantsJSON(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                    false,
		"*/*":                                 false,
		"application/json":                    true,
		"application/json;charset=UTF-8":      true,
		"application/json, */*":               true,
		"text/html,application/json;q=0.9":    false,
		"text/html;q=0.5, application/json":   true,
		"application/json;q=0":                false,
		"application/json;q=x":                false,
		"text/*, application/json":            true,
		"application/xml,application/json;q=": false, // a malformed range is skipped
		"garbage;;;":                          false,
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept", accept)
		if got := WantsJSON(r); got != want {
			t.Errorf("Accept %q: WantsJSON = %v, want %v", accept, got, want)
		}
	}
}
