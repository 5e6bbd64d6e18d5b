// Package features holds the Gherkin features, the executable form of the interface spec, and the index of the
// spec's sections that scenarios cite with @spec-<id> tags. Both are embedded so that a built tck binary carries
// the suite with it.
package features

import "embed"

// FS holds one folder per area (auth, fortune, greeting, gateway, config), sections.yaml, and the manifests
// the gateway scenarios apply (testdata/gateway).
//
//go:embed */*.feature sections.yaml testdata/gateway/*.yaml
var FS embed.FS

// Areas lists the areas in the order reports show them; a feature's area is the folder it lives in.
var Areas = []string{"auth", "fortune", "greeting", "gateway", "config"}
