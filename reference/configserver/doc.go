// Package configserver is the reference configuration server: a Spring Cloud
// Config Server compatible HTTP service backed by a git repository (go-git, no
// git binary needed).
//
// Routes (GET and HEAD only):
//
//	/{application}/{profiles}[/{label}]          environment JSON
//	/{application}-{profiles}.{yml,yaml,json,properties}
//	/{label}/{application}-{profiles}.{ext}      one merged document
//	/health                                      {"status":"UP"}
//
// Freshness: the repository is fetched on every request, so a pushed commit is
// visible on the very next request. Concurrent requests share fetches, but a
// request is only ever answered after a fetch that started after it arrived.
// When the remote is unreachable the last fetched copy is served (a warning is
// logged); with no copy at all the answer is 503 Service Unavailable (404 when
// the remote says the repository does not exist).
//
// The local copy is a bare repository kept as git keeps one: a repository
// on this machine is copied without a git transport (copy.go), reading of
// each new commit only what it changed against its parents (a tree diff,
// entry by entry in the stored trees), so that the first request after a
// one-file commit costs about the same with 10 files or 10,000. A copy of
// few objects is written loose (a commit's loose files as they are), a
// larger one as a pack, trees as deltas; loose objects are packed aside
// once there are many, packs merged once there are many (store.go). The
// copy stays about the size of the repository packed by git.
//
// Answers for an unchanged commit come from a cache keyed by commit id,
// application and profiles; parsed files are cached by blob hash. Both caches
// are bounded LRUs.
//
// Property source keys keep the file order (as Spring's LinkedHashMap does);
// the .properties document is sorted by key.
package configserver
