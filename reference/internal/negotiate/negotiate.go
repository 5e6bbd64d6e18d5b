// Package negotiate decides between a page and its JSON attributes for the reference's web applications
// (the configuration application and the greeting client), which answer both.
package negotiate

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// WantsJSON reports whether the client prefers application/json to HTML: JSON must be named explicitly, with
// a quality at least that of text/html (a browser's or curl's "*/*" gets the page).
func WantsJSON(r *http.Request) bool {
	var qJSON, qHTML float64
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := quality(params["q"])
		switch mediaType {
		case "application/json":
			qJSON = max(qJSON, q)
		case "text/html", "text/*":
			qHTML = max(qHTML, q)
		}
	}
	return qJSON > 0 && qJSON >= qHTML
}

func quality(s string) float64 {
	if s == "" {
		return 1
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q < 0 || q > 1 {
		return 0
	}
	return q
}
