package authserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheckTokenOddBodies pins check_token's answers to form bodies that
// are malformed, repeat a field, or come in another content type: the
// answers of net/http's form parser (ParseForm), which the fast path of
// checkTokenForm must keep.
func TestCheckTokenOddBodies(t *testing.T) {
	ts := newTestServer(t)
	tk := userTokens(t, ts, "openid fortunes.read").AccessToken
	const (
		form      = "application/x-www-form-urlencoded"
		mustBeSet = "Token parameter must be set"
		unknown   = "Token was not recognised"
	)
	multipart := "--XyZ\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n" + tk + "\r\n--XyZ--\r\n"
	tests := []struct {
		name, contentType, target, body string
		status                          int
		desc                            string // error_description of a 400
	}{
		{"plain", form, "", "token=" + tk, 200, ""},
		{"first of two tokens", form, "", "token=" + tk + "&token=abc", 200, ""},
		{"first of two tokens, a bad one", form, "", "token=abc&token=" + tk, 400, unknown},
		{"after another field", form, "", "x=1&token=" + tk, 200, ""},
		{"empty pairs around", form, "", "&&token=" + tk + "&&", 200, ""},
		{"empty key before", form, "", "=x&token=" + tk, 200, ""},
		{"no value", form, "", "token", 400, mustBeSet},
		{"empty value", form, "", "token=", 400, mustBeSet},
		{"empty body", form, "", "", 400, mustBeSet},
		{"field name in capitals", form, "", "TOKEN=" + tk, 400, mustBeSet},
		{"a semicolon drops the pair", form, "", "token=" + tk + ";", 400, mustBeSet},
		{"a semicolon drops only its pair", form, "", "x=;&token=" + tk, 200, ""},
		{"a bad escape drops the pair", form, "", "token=" + tk + "%", 400, mustBeSet},
		{"a bad escape drops only its pair", form, "", "token=%zz&token=" + tk, 200, ""},
		{"escaped name and value", form, "", "%74oken=%" + strings.ToUpper(hexByte(tk[0])) + tk[1:], 200, ""},
		// go-jose drops white space from a compact JWT before parsing it
		{"plus is a space", form, "", "token=" + tk[:10] + "+" + tk[10:], 200, ""},
		{"padding", form, "", "token=" + tk + "=", 400, unknown},
		{"raw space", form, "", "token= " + tk, 200, ""},
		{"escaped plus", form, "", "token=" + tk[:10] + "%2B" + tk[10:], 400, unknown},
		{"not UTF-8", form, "", "token=\xff" + tk, 400, unknown},
		{"more than 10000 fields", form, "", "token=" + tk + strings.Repeat("&", 10000), 400, mustBeSet},
		{"10000 fields", form, "", "token=" + tk + strings.Repeat("&", 9999), 200, ""},
		{"scopes present", form, "", "token=" + tk + "&scopes=openid%2Cfortunes.read", 200, ""},
		{"scopes missing", form, "", "token=" + tk + "&scopes=a+b,openid", 400, "Some requested scopes are missing: a b"},
		{"first scopes", form, "", "scopes=openid&token=" + tk + "&scopes=x", 200, ""},
		{"charset parameter", form + "; charset=UTF-8", "", "token=" + tk, 200, ""},
		{"type in capitals", "Application/X-WWW-Form-URLEncoded", "", "token=" + tk, 200, ""},
		{"no content type", "", "", "token=" + tk, 400, mustBeSet},
		{"text", "text/plain", "", "token=" + tk, 400, mustBeSet},
		{"malformed parameter of the content type", form + "; =x", "", "token=" + tk, 200, ""},
		{"malformed content type", "application/", "", "token=" + tk, 400, mustBeSet},
		{"multipart", "multipart/form-data; boundary=XyZ", "", multipart, 200, ""},
		{"token in the query only", form, "/check_token?token=" + tk, "", 400, mustBeSet},
		{"query and body", form, "/check_token?token=abc", "token=" + tk, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.target
			if target == "" {
				target = "/check_token"
			}
			req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			req.SetBasicAuth("fortune", "fortune-secret")
			rec := httptest.NewRecorder()
			ts.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("%d %s, want %d %s", rec.Code, rec.Body, tt.status, tt.desc)
			}
			if tt.desc != "" && !strings.Contains(rec.Body.String(), `"error_description":"`+tt.desc+`"`) {
				t.Fatalf("%s, want %q", rec.Body, tt.desc)
			}
		})
	}
}

func hexByte(b byte) string {
	return string("0123456789abcdef"[b>>4]) + string("0123456789abcdef"[b&15])
}
