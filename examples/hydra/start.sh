#!/usr/bin/env bash
# Starts the example Ory Hydra deployment: `hydra serve all --dev` with its in-memory store (hydra.yml beside
# this script), the login and consent application of this repository (loginconsent/, built with go build), and
# registers the fixture clients of target.yaml through Hydra's admin API. Hydra comes from `make deps`, which
# builds it from source into ${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/hydra/bin/hydra.
# Environment:
#   PUBLIC_PORT (9130)  Hydra's public API: authorization, token, userinfo, JWKS, revocation, discovery
#   ADMIN_PORT  (9131)  Hydra's admin API: clients, login and consent requests, introspection (no authentication:
#                       it listens on 127.0.0.1 only)
#   LOGIN_PORT  (9120)  the login and consent application (another origin than Hydra's, as Hydra deploys it)
#   ISSUER      (http://127.0.0.1:$PUBLIC_PORT)  Hydra's urls.self.issuer; the discovery document spells it as
#                       given, with or without a trailing slash
#   SHORT_LIFESPAN (3s) how long the access tokens of the client tck-short live
#   LOG_LEVEL   (warn)  Hydra's log level (info logs every request)
#   FORTUNE_TCK_CACHE   where `make deps` put Hydra ($HOME/.cache/fortune-tck)
# Prints "hydra ready: issuer ISSUER" once Hydra, the login and consent application and the clients are there,
# then runs until Ctrl-C or SIGTERM, which stop both processes (as does either of them exiting). Exits with
# status 3 and "Ory Hydra is not installed: run make deps" when the binary is missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
hydra="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/hydra/bin/hydra"
if [ ! -x "$hydra" ]; then
  echo "Ory Hydra is not installed: run make deps" >&2
  exit 3
fi
for tool in curl go; do
  command -v "$tool" >/dev/null 2>&1 || { echo "start.sh needs $tool" >&2; exit 3; }
done

host=127.0.0.1
public_port="${PUBLIC_PORT:-9130}"
admin_port="${ADMIN_PORT:-9131}"
login_port="${LOGIN_PORT:-9120}"
issuer="${ISSUER:-http://$host:$public_port}"
public="http://$host:$public_port"
admin="http://$host:$admin_port"
login="http://$host:$login_port"

for port in "$public_port" "$admin_port" "$login_port"; do
  if curl -s -o /dev/null "http://$host:$port/"; then
    echo "port $port already answers HTTP: stop what runs there or set PUBLIC_PORT, ADMIN_PORT, LOGIN_PORT" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The login and consent application, built first so that the process started is the application itself.
(cd "$here/../.." && go build -o "$work/loginconsent" ./examples/hydra/loginconsent)
"$work/loginconsent" -host "$host" -port "$login_port" -hydra-admin-url "$admin" &
pids+=($!)

# Hydra. The system secret encrypts what Hydra stores and signs its cookies; with the in-memory store a fresh one
# at every start is right (a restart forgets everything anyway).
SECRETS_SYSTEM="$(head -c 32 /dev/urandom | base64 | tr -d '\n')" \
  URLS_SELF_ISSUER="$issuer" \
  URLS_SELF_PUBLIC="$public/" \
  URLS_SELF_ADMIN="$admin/" \
  URLS_LOGIN="$login/login" \
  URLS_CONSENT="$login/consent" \
  URLS_ERROR="$login/error" \
  SERVE_PUBLIC_PORT="$public_port" \
  SERVE_ADMIN_PORT="$admin_port" \
  LOG_LEVEL="${LOG_LEVEL:-warn}" \
  "$hydra" serve all --dev --config "$here/hydra.yml" &
pids+=($!)

# waitfor URL NAME: until URL answers 2xx, while every process lives, for 60 seconds at most.
waitfor() {
  for _ in $(seq 1 600); do
    curl -fs -o /dev/null "$1" && return 0
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "$2 exited before it answered at $1" >&2; exit 1; }
    done
    sleep 0.1
  done
  echo "$2 did not answer at $1 within 60 seconds" >&2
  exit 1
}
waitfor "$public/health/ready" "hydra (public API)"
waitfor "$admin/health/ready" "hydra (admin API)"
waitfor "$public/.well-known/openid-configuration" "hydra (discovery)"
waitfor "$login/" "the login and consent application"

# admin_call METHOD PATH JSON: Hydra's admin API, failing loudly with Hydra's answer.
admin_call() {
  local out
  if ! out="$(curl -sS -X "$1" "$admin$2" -H 'Content-Type: application/json' -d "$3" -w '\n%{http_code}')" ||
    [[ "${out##*$'\n'}" != 2* ]]; then
    echo "hydra refused $1 $2: ${out%$'\n'*}" >&2
    exit 1
  fi
}

# The fixture clients of target.yaml. Hydra accepts only the token_endpoint_auth_method a client registered
# (at the token and revocation endpoints alike): the web clients send form fields (client_secret_post), as the
# spec's code exchange does. offline_access is what makes Hydra issue a refresh token (OpenID Connect Core 11).
web_client() { # ID SECRET
  admin_call POST /admin/clients "{\"client_id\":\"$1\",\"client_secret\":\"$2\",\"client_name\":\"$1\",
    \"redirect_uris\":[\"https://$1.client.invalid/callback\"],
    \"grant_types\":[\"authorization_code\",\"refresh_token\"],\"response_types\":[\"code\"],
    \"scope\":\"openid offline_access fortunes.read email profile\",
    \"token_endpoint_auth_method\":\"client_secret_post\"}"
}
web_client tck-web tck-web-secret
web_client tck-short tck-short-secret
short="${SHORT_LIFESPAN:-3s}"
admin_call PUT /admin/clients/tck-short/lifespans "{\"authorization_code_grant_access_token_lifespan\":\"$short\",
  \"refresh_token_grant_access_token_lifespan\":\"$short\"}"
# The resource server's client. Introspection is on the admin port and needs no client authentication in Hydra
# v2; this client exists for the scenarios that name one (and may get a token with client_credentials).
admin_call POST /admin/clients '{"client_id":"tck-resource","client_secret":"tck-resource-secret",
  "client_name":"tck-resource","grant_types":["client_credentials"],"response_types":[],"scope":"",
  "token_endpoint_auth_method":"client_secret_basic"}'

echo "hydra ready: issuer $issuer (public $public, admin $admin, login and consent $login)"
# Runs until one of the two exits, or until Ctrl-C or SIGTERM; stop() ends the other.
set +e
wait -n "${pids[@]}"
status=$?
echo "a process of the Hydra deployment exited (status $status): stopping the others" >&2
exit "$status"
