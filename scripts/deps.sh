#!/usr/bin/env bash
# Installs the programs the tests run for real, or says exactly what is missing. Nothing is skipped silently:
# a test that needs a program fails when the program is absent.
#   redis-server: shared rate-limit counters (gateway tests, the process stack)
#   rabbitmq-server: the configuration application's refresh bus, Spring Cloud Bus on RabbitMQ (the bus's tests and
#                 the process stack run private nodes of it; the system service the package starts is not used)
#   chromium:     the real-browser scenario of the greeting client (driven by chromedp)
#   node, npm:    the example oidc-provider deployment (examples/oidc-provider) that the interop test runs;
#                 its npm packages go to ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/oidc-provider
#   go:           zitadel/oidc's example OpenID Provider with fortunes.read (examples/zitadel/op), built into
#                 ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/zitadel/bin/op
#   git:          the harness pushes to a local configuration repository through git's own upload-pack and
#                 receive-pack (go-git's file transport), changing no process-wide state of go-git
#   postgresql:   the authorization server's shared store for replicas (internal/pgtest runs a real server)
#   go:           envoyproxy/ratelimit, the rate limit service of Envoy Gateway (the gateway's --rate-limit-service
#                 mode), built from its module into ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/ratelimit/bin
#   Docker:       the container tests (docker-compose.yml, images in target files): scripts/docker-deps.sh
set -euo pipefail
#
# scripts/deps.sh --conformance [--target] checks only what a conformance run needs (make conformance): git, and
# Chromium for the real-browser scenario; redis-server and rabbitmq-server too when the run boots the reference
# (no --target).
# It installs nothing else: no PostgreSQL, Node.js, Docker or example servers.

conformance=false target=false
for arg in "$@"; do
  case "$arg" in
    --conformance) conformance=true ;;
    --target) target=true ;;
    *) echo "deps: unknown argument $arg (use --conformance [--target])" >&2; exit 2 ;;
  esac
done

# rabbitmq-server's start script, which the tests and the process stack run (not the service's wrapper on PATH).
rabbitmq=/usr/lib/rabbitmq/bin/rabbitmq-server

if $conformance; then
  needed=(chromium git) packages=(chromium git)
  if ! $target; then needed+=(redis-server "$rabbitmq") packages+=(redis-server rabbitmq-server); fi
else
  needed=(redis-server "$rabbitmq" chromium node npm git)
  packages=(redis-server rabbitmq-server chromium nodejs npm git)
fi

missing=()
for i in "${!needed[@]}"; do
  command -v "${needed[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
# Debian keeps PostgreSQL's server programs out of PATH, under /usr/lib/postgresql/VERSION/bin.
if ! $conformance; then
  compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || command -v postgres >/dev/null 2>&1 || missing+=(postgresql)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The package starts RabbitMQ as a system service on port 5672, which nothing here uses (the tests and the
    # process stack run private nodes) and which would take docker-compose.yml's port: stop and disable it.
    if [[ " ${missing[*]} " == *" rabbitmq-server "* ]] && [ -d /run/systemd/system ]; then
      echo "deps: stopping and disabling the rabbitmq-server system service the package started (the tests run their own)"
      systemctl disable --now rabbitmq-server >/dev/null 2>&1 || true
    fi
  else
    echo "deps: missing ${missing[*]}." >&2
    echo "deps: install them as root, e.g.: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if $conformance; then
  exit 0
fi

# The example oidc-provider deployment: its npm packages live in a cache folder outside the source tree that
# stays from run to run; npm runs only when the installed oidc-provider is not the version package.json pins.
example="$(cd "$(dirname "$0")/../examples/oidc-provider" && pwd)"
cache="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/oidc-provider"
# oidc-provider 9 needs crypto.hash (Node.js 20.12 or later; its authors recommend the 22 LTS line).
if ! node -e 'process.exit(typeof require("node:crypto").hash === "function" ? 0 : 1)'; then
  echo "deps: node $(node --version) is too old for oidc-provider 9: it needs Node.js 20.12 or later (22 LTS recommended)." >&2
  exit 1
fi
pinned="$(node -p 'require(process.argv[1]).dependencies["oidc-provider"]' "$example/package.json")"
installed=""
if [ -f "$cache/node_modules/oidc-provider/package.json" ]; then
  installed="$(node -p 'require(process.argv[1]).version' "$cache/node_modules/oidc-provider/package.json")"
fi
if [ "$installed" != "$pinned" ]; then
  echo "deps: installing oidc-provider $pinned with npm into $cache"
  mkdir -p "$cache"
  cp "$example/package.json" "$cache/package.json"
  (cd "$cache" && npm install --omit=dev --no-audit --no-fund)
fi

# The example zitadel/oidc OpenID Provider (examples/zitadel): zitadel/oidc's example server with the scope
# fortunes.read registered for its clients, examples/zitadel/op, a Go module of its own (not a dependency of this
# module; its dependencies come through the Go module proxy), built into a cache folder outside the source tree.
# go build runs only when the binary there is absent or was built from other sources (op.sum: main.go, go.mod, go.sum):
# about 35 s on two cores with empty module and build caches, 20 s with an empty build cache only, 1 s with
# warm ones, nothing when up to date.
zitadel_src="$(cd "$(dirname "$0")/../examples/zitadel/op" && pwd)"
zitadel_bin="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/zitadel/bin"
# The sources' digest, not their times: a fresh clone's files are newer than any binary built before.
zitadel_sum="$(cat "$zitadel_src/main.go" "$zitadel_src/go.mod" "$zitadel_src/go.sum" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$zitadel_bin/op" ] || [ "$(cat "$zitadel_bin/op.sum" 2>/dev/null)" != "$zitadel_sum" ]; then
  echo "deps: building zitadel/oidc's example OP with fortunes.read (examples/zitadel/op) into $zitadel_bin"
  mkdir -p "$zitadel_bin"
  (cd "$zitadel_src" && GOWORK=off go build -o "$zitadel_bin/op.new" . && mv -f "$zitadel_bin/op.new" "$zitadel_bin/op")
  echo "$zitadel_sum" >"$zitadel_bin/op.sum"
fi

# envoyproxy/ratelimit, the rate limit service Envoy Gateway deploys: the reference gateway's --rate-limit-service
# mode asks it, its tests start it on a real redis-server, examples/envoy-ratelimit runs it. Built from its Go module
# at the version examples/envoy-ratelimit/service.version names (its go.mod has no replace directives, so go install
# builds it as published), into a cache folder outside the source tree; the version built is kept beside it, and
# go install runs only when that differs. About 25 s on two cores with empty module and build caches, nothing when
# up to date.
rls_pkg="$(tr -d '[:space:]' <"$(dirname "$0")/../examples/envoy-ratelimit/service.version")"
rls_bin="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/ratelimit/bin"
if [ ! -x "$rls_bin/service_cmd" ] || [ "$(cat "$rls_bin/service_cmd.version" 2>/dev/null)" != "$rls_pkg" ]; then
  echo "deps: building envoyproxy/ratelimit ($rls_pkg) into $rls_bin"
  mkdir -p "$rls_bin"
  rls_tmp="$(mktemp -d "$rls_bin/.build.XXXXXX")"
  (GOBIN="$rls_tmp" GOWORK=off go install "$rls_pkg" && mv -f "$rls_tmp/service_cmd" "$rls_bin/service_cmd") ||
    { rm -rf "$rls_tmp"; echo "deps: could not build envoyproxy/ratelimit ($rls_pkg); see above" >&2; exit 1; }
  rm -rf "$rls_tmp"
  echo "$rls_pkg" >"$rls_bin/service_cmd.version"
fi

# Docker, Compose and the base image of the container tests; as root it installs and starts them, otherwise it
# says what to install.
"$(dirname "$0")/docker-deps.sh"
