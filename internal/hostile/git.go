package hostile

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The git server of the configuration repository, over smart HTTP, as untrusted as the rest: each repository
// misbehaves its way. Each asks for the credentials RepoUser and RepoPassword first.
//
//	URL/silent.git    takes the request for the refs and never answers
//	URL/trickle.git   answers with the start of a ref list, then one byte every 200 ms
//	URL/endless.git   lists refs without end (up to maxEndless bytes, as fast as they are read)
//	URL/echo.git      answers 500 with a page that repeats the Authorization header and the repository's password
func (s *Server) routeGit(mux *http.ServeMux) {
	mux.HandleFunc("/silent.git/", s.gitAuth(func(_ http.ResponseWriter, r *http.Request) { s.stall(r) }))
	mux.HandleFunc("/trickle.git/", s.gitAuth(s.trickle))
	mux.HandleFunc("/endless.git/", s.gitAuth(s.endless))
	mux.HandleFunc("/echo.git/", s.gitAuth(func(w http.ResponseWriter, r *http.Request) {
		s.echo(w, r, RepoPassword)
	}))
}

// maxEndless bounds the ref list of endless.git: far more than any harness should read.
const maxEndless = 512 << 20

// gitAuth asks for the repository's credentials.
func (s *Server) gitAuth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != RepoUser || p != RepoPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="hostile"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h(w, r)
	}
}

// pktLine is a line of git's protocol.
func pktLine(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

func advertisementStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
	fmt.Fprint(w, pktLine("# service=git-upload-pack\n")+"0000")
}

func (s *Server) trickle(w http.ResponseWriter, r *http.Request) {
	advertisementStart(w)
	line := pktLine("1111111111111111111111111111111111111111 refs/heads/master\x00multi_ack side-band-64k\n")
	rc := http.NewResponseController(w)
	deadline := time.After(maxStall)
	for i := 0; ; i = (i + 1) % len(line) {
		if _, err := fmt.Fprint(w, line[i:i+1]); err != nil || rc.Flush() != nil {
			return
		}
		select {
		case <-s.closed:
			return
		case <-r.Context().Done():
			return
		case <-deadline:
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (s *Server) endless(w http.ResponseWriter, r *http.Request) {
	advertisementStart(w)
	fmt.Fprint(w, pktLine(strings.Repeat("1", 40)+" refs/heads/master\x00multi_ack side-band-64k\n"))
	var b strings.Builder
	for n, i := 0, 0; n < maxEndless; {
		b.Reset()
		for range 1000 {
			b.WriteString(pktLine(fmt.Sprintf("%040x refs/heads/endless-%d\n", i+1, i)))
			i++
		}
		if _, err := fmt.Fprint(w, b.String()); err != nil {
			return
		}
		n += b.Len()
		select {
		case <-s.closed:
			return
		case <-r.Context().Done():
			return
		default:
		}
	}
}
