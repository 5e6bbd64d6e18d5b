package fortune

import "testing"

func TestIsB64Token(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"azAZ09-._~+/", true},
		{"abc==", true},
		{"a", true},
		{"", false},
		{"==", false},
		{"a=b", false},
		{"a b", false},
		{`a"b`, false},
		{"a,b", false},
		{"a:b", false},
		{"a\x00", false},
		{"a\xc3\xa9", false}, // é
		{"a\xff", false},
	} {
		if got := isB64Token(tc.s); got != tc.want {
			t.Errorf("isB64Token(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
