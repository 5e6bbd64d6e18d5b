#!/usr/bin/env bash
# Builds fortune-tck/static:local unless it is here: the reference image's base where no registry gives
# distroless's static image, and what that image gives a static binary, an empty root but /tmp. On Docker's vfs
# storage driver each container start copies its image's files: a few here, against the thousands of a Debian
# base (a configuration app instance of the compose target starts in about 1 s instead of 8-25 s under load).
# Used by scripts/compose.sh (make compose-up) and internal/dockertest (the container tests).
set -euo pipefail
image=fortune-tck/static:local
if docker image inspect "$image" >/dev/null 2>&1; then
  exit 0
fi
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir "$root/tmp"
chmod 1777 "$root/tmp"
log="$root.log"
if ! printf 'FROM scratch\nCOPY . /\n' | docker build -q -t "$image" -f - "$root" >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
