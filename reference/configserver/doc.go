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
// tree.go); and the repository: reading one through go-git (reader.go),
// the bare mirror in the base directory (mirror.go), a remote repository
// fetched (fetch.go), one on this machine read in place (local.go) while
// its mirror is fetched in the background (background.go), and keeping
// either fresh (fresh.go, coalesce.go).
//
// Before each request the repository is brought up to date by an update
// that started after the request arrived, shared by the requests that
// arrived meanwhile, so a pushed commit is visible at the very next
// request. A remote repository is fetched with go-git into the mirror,
// which answers are read from. A repository on this machine (a path or a
// file:// URL) is read in place, as Spring reads a file: URI: its refs are
// read through go-git when the bytes of its ref files changed (package
// reffiles), and when they changed the mirror is fetched from it with
// go-git in the background, never on a request's path (through go-git's
// in-process server when git is not installed: package localfetch). When the
// repository is unreachable, gone or broken the mirror, the last good copy,
// is served (a warning is logged); with no copy at all the answer is 503
// Service Unavailable (404 when the repository does not exist).
//
// Answers for an unchanged commit come from a cache keyed by commit id,
// application, profiles and label; parsed files are cached by blob hash.
// Both caches are bounded LRUs.
//
// Property source keys keep the file order (as Spring's LinkedHashMap does);
// the .properties document is sorted by key.
package configserver
