// Package configserver is the reference configuration server: a Spring Cloud
// Config Server compatible HTTP service backed by a git repository, through
// go-git (no git binary needed).
//
// Routes (GET and HEAD only):
//
//	/{application}/{profiles}[/{label}]          environment JSON
//	/{application}-{profiles}.{yml,yaml,json,properties}
//	/{label}/{application}-{profiles}.{ext}      one merged document
//	/health                                      {"status":"UP"}
//
// It owns, by concern: the routes and names a request may use (handler.go,
// names.go, errors.go); which files answer it, in Spring's precedence, and
// the answer's formats (environment.go, yaml.go, props.go, document.go,
// tree.go); the repository: reading one through go-git (reader.go), the
// mirror in the base directory (mirror.go), a remote one fetched (fetch.go),
// one on this machine read in place (local.go), its mirror fetched in the
// background (background.go), either kept fresh (fresh.go, coalesce.go).
//
// Before each request the repository is brought up to date by an update
// that started after the request arrived (shared by the requests that
// arrived meanwhile), so a pushed commit is visible at the next request: a
// remote one is fetched into the mirror; one on this machine is read in
// place, as Spring reads a file: URI, its mirror fetched in the background
// (package localfetch where git is not installed). When the repository is
// unreachable, gone or broken the mirror, the last good copy, is served
// (with a warning); with no copy at all the answer is 503 (404 when the
// repository does not exist).
//
// Answers for an unchanged commit come from a bounded cache keyed by commit,
// application, profiles and label; parsed files, from one by blob hash.
//
// Property source keys keep the file order (as Spring's LinkedHashMap does);
// the .properties document is sorted by key.
package configserver
