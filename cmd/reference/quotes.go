package main

import (
	"context"
	"flag"
	"log/slog"

	"github.com/fortune-tck/fortune-tck/reference/quotes"
)

func quotesService() *service {
	return &service{
		name:    "quotes",
		summary: "quote source (the JSON of Spring's quoters service)",
		port:    8081,
		flags:   quotesFlags,
		demo:    quotesDemo,
	}
}

// quotesFlags: the quote source has no settings of its own.
func quotesFlags(*flag.FlagSet, func(string) string) buildFunc {
	return func(_ context.Context, log *slog.Logger) (*instance, error) {
		return &instance{handler: quotes.New(log)}, nil
	}
}

func quotesDemo(_ context.Context, st *stack) (*instance, error) {
	url := st.urls["quotes"]
	return &instance{handler: quotes.New(st.log.With("service", "quotes")), hints: []string{
		"try:  curl " + url + "/api/random",
		"      curl " + url + "/api/3",
		"the demo configuration's quoteServiceURL is " + url + "/quotes",
	}}, nil
}
