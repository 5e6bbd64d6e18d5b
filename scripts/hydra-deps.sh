#!/usr/bin/env bash
# Builds Ory Hydra for the example deployment (examples/hydra) that make interop runs; make test does not run
# it, so make deps does not build it (1.5 to 3 minutes on two cores with cold caches).
#   go, gcc:      Hydra, built from its module's source into ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/hydra/bin/hydra
set -euo pipefail

# The example Ory Hydra deployment (examples/hydra): Hydra built from the source of its module (the Go module
# proxy's copy) into a cache folder outside the source tree; it runs only when the binary there is absent or
# reports another version. `go install github.com/ory/hydra/v2@v2.3.0` is refused (its go.mod has replace
# directives), and one of them, hydra-client-go => ./internal/httpclient, names a nested module that the module's
# zip leaves out: the copy built here drops that one and takes hydra-client-go v2.2.1, the version Hydra's go.mod
# requires, from the proxy (the other, gobuffalo/pop => ory/pop, is fetched as it says). The in-memory store is
# SQLite: cgo and gcc, with the tags of Hydra's own Dockerfile. A few minutes on two cores with cold caches.
hydra_version=v2.3.0
hydra_home="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/hydra"
hydra_built=""
if [ -x "$hydra_home/bin/hydra" ]; then
  hydra_built="$("$hydra_home/bin/hydra" version 2>/dev/null | awk '$1 == "Version:" { print $2 }' || true)"
fi
if [ "$hydra_built" != "$hydra_version" ]; then
  if ! command -v gcc >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "deps: installing gcc with apt-get (Hydra's SQLite store needs cgo)"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null
    else
      echo "deps: missing gcc, which building Ory Hydra needs (cgo, for SQLite): sudo apt-get install -y gcc libc6-dev" >&2
      exit 1
    fi
  fi
  echo "deps: building Ory Hydra $hydra_version from its module's source into $hydra_home/bin (cgo; a few minutes)"
  rm -rf "$hydra_home/build"
  mkdir -p "$hydra_home/build" "$hydra_home/bin"
  hydra_src="$(cd "$hydra_home/build" && GOWORK=off go mod download -json "github.com/ory/hydra/v2@$hydra_version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  cp -R "$hydra_src" "$hydra_home/build/hydra"
  chmod -R u+w "$hydra_home/build/hydra"
  (cd "$hydra_home/build/hydra" &&
    export GOWORK=off CGO_ENABLED=1 &&
    go mod edit -dropreplace=github.com/ory/hydra-client-go/v2 &&
    go mod download github.com/ory/hydra-client-go/v2 &&
    go build -trimpath -tags sqlite,sqlite_omit_load_extension \
      -ldflags "-X github.com/ory/hydra/v2/driver/config.Version=$hydra_version" -o "$hydra_home/bin/hydra.new" .)
  mv -f "$hydra_home/bin/hydra.new" "$hydra_home/bin/hydra"
  rm -rf "$hydra_home/build"
fi

