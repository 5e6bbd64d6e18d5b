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
// tree.go); and the repository (the types mirror, freshness, local, remote
// and objectFiles).
//
// Every answer is read, through go-git's storage, from a bare mirror of the
// repository in the base directory (mirror.go). Before each request the
// mirror is brought up to date by an update that started after the request
// arrived, shared by the requests that arrived meanwhile (fresh.go,
// coalesce.go), so a pushed commit is visible at the very next request. A
// remote repository is fetched with go-git (fetch.go); a repository on this
// machine has its refs read through go-git when the bytes of its ref files
// changed (package reffiles) and, when they changed, its object files copied
// into the mirror as git clone of a local path does (local.go, objfiles.go). When the repository is unreachable, gone or broken the last
// good copy is served (a warning is logged); with no copy at all the answer
// is 503 Service Unavailable (404 when the repository does not exist).
//
// Answers for an unchanged commit come from a cache keyed by commit id,
// application, profiles and label; parsed files are cached by blob hash.
// Both caches are bounded LRUs.
//
// Property source keys keep the file order (as Spring's LinkedHashMap does);
// the .properties document is sorted by key.
package configserver
