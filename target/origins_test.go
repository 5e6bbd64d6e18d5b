package target

import (
	"slices"
	"strings"
	"testing"
)

// allowedOrigins takes origins only: a URL with a path, another scheme or no host is a mistake named with its
// field path, as every other mistake of the file.
func TestAllowedOriginsAreCheckedWithTheirFieldPath(t *testing.T) {
	const base = "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\n"
	for yaml, want := range map[string]string{
		"allowedOrigins: ['ftp://login.example']":         `allowedOrigins[0]: "ftp://login.example": the scheme ftp is not allowed`,
		"allowedOrigins: [ok, 'http://a']":                `allowedOrigins[0]: "ok" is not an origin`,
		"allowedOrigins: ['http://a', 'http://b/login']":  `allowedOrigins[1]: "http://b/login" is a URL, not an origin`,
		"allowedOrigins: ['http://u:p@a']":                `allowedOrigins[0]: "http://u:p@a" is a URL, not an origin`,
		"allowedOrigins: ['file:///etc']":                 `allowedOrigins[0]: "file:///etc" is not an origin`,
		"allowedOrigins: ['javascript://x']":              `the scheme javascript is not allowed`,
		"allowedOrigins: ['http://a:']":                   `allowedOrigins[0]: "http://a:" has an empty port`,
		"allowedOrigins: 'http://a'":                      "allowedOrigins (line 3): str",
		"allowedorigins: ['http://a']":                    "allowedorigins: unknown field",
		"allowedOrigins: ['http://a', '%zz']":             `allowedOrigins[1]: "%zz" is not an origin`,
		"allowedOrigins: ['http://[::1]:9120', 'http:x']": `allowedOrigins[1]: "http:x" is not an origin`,
	} {
		_, err := Parse([]byte(base + yaml + "\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", yaml, err, want)
		}
	}
	tg, err := Parse([]byte(base + "allowedOrigins: ['http://127.0.0.1:9120', 'HTTPS://Login.Example/']\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://x:80", "http://127.0.0.1:9120", "https://login.example:443"}
	if got := tg.Origins(); !slices.Equal(got, want) {
		t.Errorf("Origins() = %v, want %v", got, want)
	}
}

func TestOriginsAreOfHTTPURLsOnly(t *testing.T) {
	for raw, want := range map[string]string{
		"http://A.example:8080/x?y": "http://a.example:8080",
		"https://a":                 "https://a:443",
		"http://[::1]/":             "http://[::1]:80",
		"file:///etc/passwd":        "",
		"/srv/config.git":           "",
		"git@host:repo":             "",
		"javascript:alert(1)":       "",
	} {
		got, ok := Origin(raw)
		if got != want || ok != (want != "") {
			t.Errorf("Origin(%q) = %q, %v, want %q", raw, got, ok, want)
		}
	}
}
