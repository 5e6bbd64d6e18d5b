// Package quotes is the reference quote source that the configuration client
// application's /random-quote page reads (its quoteServiceURL). It answers in
// the format of Spring's "quoters" service, which the original demo uses:
//
//	GET /api/random   {"type":"success","value":{"id":3,"quote":"..."}}
//	GET /api/{id}     the same record for one id; 404 for an unknown id,
//	                  400 for an id that is not a positive number
//	GET /api          every record, as a JSON array
//	GET /, /quotes    a random record, as /api/random (the demo configuration
//	                  repository points quoteServiceURL at /quotes)
//	GET /health       {"status":"UP"}
//
// Errors are JSON too: {"type":"error","message":"..."}. Only GET and HEAD are
// served (405 with Allow otherwise). The quotes are a built-in collection of
// real, public-domain quotations, each ending with its author.
package quotes
