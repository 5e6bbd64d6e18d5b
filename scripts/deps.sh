#!/usr/bin/env bash
# Installs the programs the tests run for real, or says exactly what is missing. Nothing is skipped silently:
# a test that needs a program fails when the program is absent.
#   redis-server: shared rate-limit counters and the refresh bus (gateway and configuration app tests)
#   chromium:     the real-browser scenario of the greeting client (driven by chromedp)
#   postgresql:   the authorization server's shared store for replicas (internal/pgtest runs a real server)
set -euo pipefail

needed=(redis-server chromium)
packages=(redis-server chromium)

missing=()
for i in "${!needed[@]}"; do
  command -v "${needed[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
# Debian keeps PostgreSQL's server programs out of PATH, under /usr/lib/postgresql/VERSION/bin.
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || command -v postgres >/dev/null 2>&1 || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi

echo "deps: missing ${missing[*]}." >&2
echo "deps: install them as root, e.g.: sudo apt-get install -y ${missing[*]}" >&2
exit 1
