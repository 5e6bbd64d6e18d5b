// Package containertest runs the suite the ways its container documentation gives, for real, with Docker: the
// whole suite against the stack of docker-compose.yml (make compose-up, make conformance with
// examples/compose/target.yaml, make compose-down, once with each Compose installed), and the suite's own image
// (the Dockerfile's tck target) run as its caller against the reference. It has no code; its tests are the
// longest of make test (minutes, Docker copying image layers), and live apart from cmd/tck's so that go test
// runs them beside the other packages.
//
// The compose stack runs on ports moved off the spec's (docker-compose.yml's FORTUNE_TCK_*_PORT variables, free
// ones), so that it cannot collide with make demo, the envoy-ratelimit example or another stack on the spec's
// ports that tests of other packages run at the same time. Without Docker these tests skip on a developer's
// machine and under go test -short; with CI set they fail instead (internal/dockertest).
package containertest
