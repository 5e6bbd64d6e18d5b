package main

import (
	"context"
	"flag"

	"github.com/fortune-tck/fortune-tck/reference/quotes"
)

func quotesService() *service {
	return &service{
		name:    "quotes",
		summary: "quote source (the JSON of Spring's quoters service)",
		port:    8081,
		flags:   quotesFlags,
		args:    func(*plan) []string { return nil }, // it calls no other service
	}
}

// quotesFlags: the quote source has no settings of its own.
func quotesFlags(fs *flag.FlagSet, _ func(string) string) buildFunc {
	return func(_ context.Context, env buildEnv) (*instance, error) {
		url := ownURL(fs)
		return &instance{handler: quotes.New(env.log), hints: []string{
			"try:  curl " + url + "/api/random",
			"      curl " + url + "/api/3",
			"the demo configuration's quoteServiceURL is " + url + "/quotes",
		}}, nil
	}
}
