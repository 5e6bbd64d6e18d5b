package htmlreport

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// clean makes every string of a scenario valid UTF-8 and cuts the long ones.
func clean(s Scenario) Scenario {
	s.Name, s.Feature, s.Reason = cleanText(s.Name, MaxText), cleanText(s.Feature, MaxText), cleanText(s.Reason, MaxText)
	for i := range s.Steps {
		st := &s.Steps[i]
		st.Keyword, st.Text, st.Status = cleanText(st.Keyword, MaxText), cleanText(st.Text, MaxText), cleanText(st.Status, 100)
		st.Error, st.DocString = cleanText(st.Error, MaxText), cleanText(st.DocString, MaxText)
		for _, r := range st.Rows {
			for j := range r {
				r[j] = cleanText(r[j], MaxText)
			}
		}
	}
	for i := range s.Exchanges {
		x := &s.Exchanges[i]
		x.Method, x.URL = cleanText(x.Method, 100), cleanText(x.URL, MaxText)
		x.Sent, x.Received = cleanText(x.Sent, 100), cleanText(x.Received, 100)
		for _, hs := range [][]Header{x.RequestHeaders, x.ResponseHeaders} {
			for j := range hs {
				hs[j].Name, hs[j].Value = cleanText(hs[j].Name, 1000), cleanText(hs[j].Value, MaxText)
			}
		}
		x.RequestBody.Text = strings.ToValidUTF8(x.RequestBody.Text, "\uFFFD")
		x.ResponseBody.Text = strings.ToValidUTF8(x.ResponseBody.Text, "\uFFFD")
	}
	for i := range s.Texts {
		s.Texts[i].Name, s.Texts[i].Text = cleanText(s.Texts[i].Name, 1000), cleanText(s.Texts[i].Text, MaxText)
	}
	for i := range s.Images {
		s.Images[i].Name = cleanText(s.Images[i].Name, 1000)
	}
	for i := range s.Omitted {
		s.Omitted[i] = cleanText(s.Omitted[i], 1000)
	}
	return s
}

func cleanSection(s Section) Section {
	s.Summary = cleanText(s.Summary, MaxText)
	return s
}

// cleanText replaces invalid UTF-8 and cuts text longer than limit, noting its size.
func cleanText(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > limit {
		return fmt.Sprintf("%s… (cut: %d bytes in all)", cutUTF8(s, limit), len(s))
	}
	return s
}

// cutUTF8 cuts s at n bytes or before, on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
