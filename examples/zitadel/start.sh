#!/usr/bin/env bash
# Starts zitadel/oidc's example OpenID Provider (github.com/zitadel/oidc/v3/example/server, v3.51.17) with the scope
# fortunes.read registered for its clients: op/ beside this script, which `make deps` built into
# ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/zitadel/bin/op. Its users and clients are the ones hard-coded in
# the example's storage package (see target.yaml beside this script).
# Environment:
#   PORT          listening port (default 9110). It binds 127.0.0.1 only, and its issuer is always
#                 http://localhost:$PORT/ (with the trailing slash).
#   REDIRECT_URI  comma-separated redirect URIs registered for each of the example's clients web, api and native
#                 (default https://tck-web.client.invalid/callback, the one target.yaml names).
#   USERS_FILE    optional: a JSON file of users that replaces the two built-in ones (the example's own option).
# Prints "zitadel example OP listening on http://localhost:PORT/" once its discovery document answers; the
# example's own log (every request) goes to stderr. Exits 3 when the binary is not built or was built from other
# sources than op/'s (make deps keeps their digest in op.sum beside it), 1 when it does not come up within 30 seconds (a port in use, say). SIGTERM or Ctrl-C stops it.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
bin="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/zitadel/bin/op"

sum="$(cat "$here/op/main.go" "$here/op/go.mod" "$here/op/go.sum" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$bin" ] || [ "$(cat "$bin.sum" 2>/dev/null)" != "$sum" ]; then
  echo "zitadel/oidc's example OP with fortunes.read (examples/zitadel/op) is not built or is out of date: run make deps" >&2
  exit 3
fi

export PORT="${PORT:-9110}"
export REDIRECT_URI="${REDIRECT_URI:-https://tck-web.client.invalid/callback}"
issuer="http://localhost:$PORT/"

if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then
  echo "port $PORT already answers HTTP: stop what runs there or set PORT" >&2
  exit 1
fi

"$bin" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true' TERM INT HUP

# The example logs "server listening" before it binds; wait for an answer instead.
for _ in $(seq 1 300); do
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" || true
    echo "zitadel example OP exited before it answered (is port $PORT in use?)" >&2
    exit 1
  fi
  if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/.well-known/openid-configuration" 2>/dev/null; then
    echo "zitadel example OP listening on $issuer"
    # wait returns early when a trapped signal arrives; wait again for the child to finish.
    wait "$pid" || { status=$?; wait "$pid" 2>/dev/null || true; exit "$status"; }
    exit 0
  fi
  sleep 0.1
done
echo "zitadel example OP did not answer at http://127.0.0.1:$PORT/ within 30 seconds" >&2
kill -TERM "$pid" 2>/dev/null || true
exit 1
