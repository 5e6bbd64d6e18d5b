package hostile

import (
	"fmt"
	"net/http"
	"strings"
)

// The greeting client. With GreetingAway its page does what a page can to reach beyond the origins a target
// file declares: it plants a download, asks the undeclared server for an image, a frame, a fetch, a beacon, a
// worker's fetch and WebSockets (from the page and from a worker), and after a moment sends the browser to the
// undeclared server's metadata path. Without it, it shows a page with a fortune.
func (s *Server) routeGreeting(mux *http.ServeMux) {
	mux.HandleFunc("GET /download", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="planted.sh"`)
		_, _ = w.Write([]byte("#!/bin/sh\necho planted\n"))
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		if !s.b.GreetingAway {
			s.page(w, http.StatusOK, "Greeting", `<blockquote class="fortune">A hostile fortune.</blockquote>`)
			return
		}
		und := s.Undeclared.URL
		host := strings.TrimPrefix(und, "http://")
		s.page(w, http.StatusOK, "Greeting", fmt.Sprintf(`<img src="%[1]s/img.png"><iframe src="%[1]s/frame"></iframe>
<a id="planted" href="/download" download="planted.sh">download</a>
<script>
fetch("%[1]s/fetch", {mode: "no-cors"}).catch(() => {});
try { new WebSocket("ws://%[2]s/ws"); } catch (e) {}
try { navigator.sendBeacon("%[1]s/beacon", "x"); } catch (e) {}
try { new Worker(URL.createObjectURL(new Blob(["fetch('%[1]s/worker').catch(()=>{}); new WebSocket('ws://%[2]s/wsworker');"]))); } catch (e) {}
document.getElementById("planted").click();
setTimeout(() => { location.href = "%[1]s/latest/meta-data/iam/security-credentials/"; }, 300);
</script>`, und, host))
	})
}
