#!/usr/bin/env bash
# Starts the example oidc-provider deployment (server.mjs beside this script) with the npm packages that
# `make deps` installed into ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/oidc-provider.
# Environment: PORT (9090), HOST (127.0.0.1), ISSUER (http://127.0.0.1:$PORT),
# GREETING_REDIRECT_URI (http://127.0.0.1:8100/). Prints "oidc-provider listening on http://HOST:PORT" when ready.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/oidc-provider"

if [ ! -f "$cache/node_modules/oidc-provider/package.json" ] || ! command -v node >/dev/null 2>&1; then
  echo "oidc-provider is not installed: run make deps" >&2
  exit 3
fi

# ESM ignores NODE_PATH: server.mjs imports oidc-provider from the folder named by OIDC_PROVIDER_HOME.
export OIDC_PROVIDER_HOME="$cache"
exec node "$here/server.mjs"
