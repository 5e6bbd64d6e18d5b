package fortune

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// challengePattern is a well-formed Bearer challenge of this service: every
// attribute value is a quoted string without quotes or backslashes inside.
var challengePattern = regexp.MustCompile(`^Bearer realm="fortunes"(, (error|error_description|scope)="[\x20\x21\x23-\x5b\x5d-\x7e]*")*$`)

// FuzzAuthorizationHeader sends arbitrary Authorization headers to both
// validation methods: nothing may panic or answer anything but a fortune
// (for the one good token only) or a well-formed refusal.
func FuzzAuthorizationHeader(f *testing.F) {
	as := authtest.Start(f)
	good := as.ResourceClient(f, "reader", 0, RequiredScope)
	other := as.ResourceClient(f, "other", 0, "openid")
	services := []http.Handler{
		start(f, as, Options{}).srv,
		start(f, as, Options{Validation: ValidateJWT, KeyRefetchInterval: 1 << 62}).srv,
	}
	for _, seed := range []string{
		"Bearer " + good, "bearer  " + good + " ", "Bearer " + other, "Bearer " + good[:len(good)-3],
		"Bearer", "Bearer ", "Bearer a b", "Bearer not.a-token", "Bearer ====", "Bearer a===",
		"Basic Zm9vOmJhcg==", "", "Bearer \x00\"\\", "Bearer eyJhbGciOiJub25lIn0.e30.", "Bearer é",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		for _, h := range services {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			checkAnswer(t, header, good, rec)
		}
	})
}

func checkAnswer(t *testing.T, header, good string, rec *httptest.ResponseRecorder) {
	t.Helper()
	switch rec.Code {
	case http.StatusOK:
		scheme, token, _ := strings.Cut(header, " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.Trim(token, " ") != good {
			t.Fatalf("%q got a fortune", header)
		}
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		if h := rec.Header().Get("WWW-Authenticate"); !challengePattern.MatchString(h) {
			t.Fatalf("%q: malformed challenge %q", header, h)
		}
	default:
		t.Fatalf("%q: %d %s", header, rec.Code, rec.Body)
	}
}
