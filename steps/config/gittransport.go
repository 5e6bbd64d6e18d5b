package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// A repository reached over http(s) is the target's server, as untrusted as the rest of it: its answers are
// bounded in size (a ref list that never ends, a pack that never ends), it is contacted only at the origins
// the target file declares, and every git operation has a deadline (gitTimeout). go-git's own http client has
// none of this, and its table of transports is the process's (a configuration server in the same process may
// have put its own there): the steps add a scheme of their own to that table, tck+http(s), whose client is
// theirs, and reach the repository through it. The other schemes (a path, file://, ssh://, git://) keep
// go-git's transports, bounded in time by the operation's context.

// Limits of one git operation against the target's repository.
const (
	// gitTimeout bounds one clone, fetch, push or listing of refs.
	gitTimeout = 60 * time.Second
	// maxRefList bounds the answer that lists the refs (info/refs): about 50,000 refs.
	maxRefList = 4 << 20
	// maxPack bounds any other answer, such as a pack.
	maxPack = 64 << 20
)

// schemePrefix marks the schemes of the steps' own git transport.
const schemePrefix = "tck+"

var installOnce sync.Once

// gitURL is the URI through which the steps reach a repository: an http(s) one through their own transport,
// a path as a file:// URI, anything else as written. go-git pushes to a repository named by a path by first
// reading, from the repository's folder, every object its refs reach, to leave them out of the pack
// (Remote.PushContext, for a "local endpoint"): that grows with the repository's history, to 116-140 ms a push
// at 300 commits against 60-80 ms for the same repository as a file:// URI (measured in turns), where go-git
// reads what the clone holds instead. Either way git's own git-receive-pack takes the push.
func gitURL(uri string) string {
	if !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "https://") {
		if ep, err := transport.NewEndpoint(uri); err == nil && ep.Protocol == "file" && !strings.Contains(uri, "://") {
			return (&url.URL{Scheme: "file", Path: filepath.ToSlash(ep.Path)}).String()
		}
		return uri
	}
	installOnce.Do(func() {
		c := githttp.NewClient(&http.Client{Transport: &gitTransport{},
			CheckRedirect: func(req *http.Request, _ []*http.Request) error {
				return fmt.Errorf("the repository's server redirected to %s; the harness does not follow a git redirect: "+
					"give the repository's own address in services.configServer.repository.uri", core.Redacted(req.URL))
			}})
		client.InstallProtocol(schemePrefix+"http", c)
		client.InstallProtocol(schemePrefix+"https", c)
	})
	return schemePrefix + uri
}

// originsKey carries the run's origins in the context of a git operation (gitOp), for the transport, which
// every run of the process shares.
type originsKey struct{}

// transports are the transports of the runs' origin policies, one each.
var transports sync.Map // *core.Origins -> http.RoundTripper

// readableGitError is an error of go-git with the repository's address as the target file gives it.
func readableGitError(err error) error {
	if err == nil || !strings.Contains(err.Error(), schemePrefix) {
		return err
	}
	return &gitError{msg: strings.ReplaceAll(err.Error(), schemePrefix, ""), err: err}
}

type gitError struct {
	msg string
	err error
}

func (e *gitError) Error() string { return e.msg }
func (e *gitError) Unwrap() error { return e.err }

// gitTransport sends the requests of the tck+ schemes as http(s), through the transport of the run whose
// operation it is (only the declared origins), and bounds what each answer may bring.
type gitTransport struct{}

func (t *gitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	origins, _ := req.Context().Value(originsKey{}).(*core.Origins)
	if origins == nil {
		return nil, errors.New("a git request outside a git operation of the steps")
	}
	if s, ok := strings.CutPrefix(req.URL.Scheme, schemePrefix); ok {
		r := req.Clone(req.Context())
		r.URL.Scheme = s
		req = r
	}
	next, _ := transports.LoadOrStore(origins, core.NewTransport(origins, nil))
	resp, err := next.(http.RoundTripper).RoundTrip(req)
	if err != nil {
		return nil, err
	}
	// go-git takes an answer whose request differs from the endpoint (its scheme, here) for a redirect, and
	// moves the endpoint there; an answer without a request is none (ModifyEndpointIfRedirect). The transport
	// follows no redirect, so there is none to tell. go-git's own error for a status that is no success reads
	// the request, so such an answer is an error of the transport's.
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _, _ := core.ReadBody(resp.Body, 512)
		return nil, fmt.Errorf("the repository's server answered %s to %s %s: %s", resp.Status, req.Method,
			core.Redacted(req.URL), core.Printable(strings.TrimSpace(string(body))))
	}
	resp.Request = nil
	limit, what := int64(maxPack), "answer"
	if strings.HasSuffix(req.URL.Path, "/info/refs") {
		limit, what = maxRefList, "list of refs"
	}
	resp.Body = &boundedBody{body: resp.Body, left: limit, err: &TooLargeError{What: what, URL: core.Redacted(req.URL), Limit: limit}}
	return resp, nil
}

// TooLargeError is an answer of the repository's server larger than the harness reads.
type TooLargeError struct {
	What, URL string
	Limit     int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the repository's server sent more than %d MiB as its %s (%s): the harness reads no more",
		e.Limit>>20, e.What, e.URL)
}

// boundedBody fails once more than its limit is read.
type boundedBody struct {
	body io.ReadCloser
	left int64
	err  error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.body.Close() }

// gitOp runs one git operation against the repository within gitTimeout of ctx, noted as what the run is
// waiting for; an operation the deadline stops says so, naming the repository.
func gitOp(ctx context.Context, run *core.Run, what, uri string, op func(context.Context) error) error {
	opCtx, cancel := context.WithTimeout(context.WithValue(ctx, originsKey{}, run.Origins), gitTimeout)
	defer cancel()
	defer run.Waiting(what + " " + redactedURI(uri))()
	err := readableGitError(op(opCtx))
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%s %s: the run was stopped: %w", what, redactedURI(uri), err)
	case opCtx.Err() != nil:
		return fmt.Errorf("%s %s: no end within %s (the harness's deadline for one git operation): %w", what, redactedURI(uri), gitTimeout, err)
	}
	return err
}

// redactedURI is a repository's address without credentials.
func redactedURI(uri string) string {
	if i := strings.Index(uri, "://"); i >= 0 {
		if at := strings.LastIndex(uri[:strings.IndexByte(uri[i+3:]+"/", '/')+i+3], "@"); at > i {
			return uri[:i+3] + "…@" + uri[at+1:]
		}
	}
	return uri
}
