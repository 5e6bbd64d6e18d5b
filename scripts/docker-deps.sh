#!/usr/bin/env bash
# Docker for the container tests (harness/containers, the compose stack), or a message naming what is missing.
# No image registry is reachable on the machines this project's CI runs on, so nothing is pulled: the base image
# is made here from Debian's packages (debootstrap, then docker import) and every other image is built on it.
#   docker.io:       the Docker daemon (dockerd, storage driver vfs: no overlay filesystem inside a container)
#   docker-compose:  Compose 1.29, Debian's (Compose v2, the docker CLI plugin, is used too when installed)
#   debootstrap:     the base image, a minimal Debian (variant minbase) of this machine's release
# Run as root it installs the packages, starts dockerd when no daemon answers (log in $DOCKERD_LOG) and builds the
# base image $BASE_IMAGE once (kept: a later run finds it with docker image inspect).
set -euo pipefail

BASE_IMAGE="${FORTUNE_TCK_BASE_IMAGE:-fortune-tck/base:local}"
DOCKERD_LOG="${DOCKERD_LOG:-/var/log/fortune-tck-dockerd.log}"

needed=(dockerd docker docker-compose debootstrap)
packages=(docker.io docker.io docker-compose debootstrap)
missing=()
for i in "${!needed[@]}"; do
  command -v "${needed[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u | sed '/^$/d')

if [ "$(id -u)" -ne 0 ]; then
  if [ ${#missing[@]} -gt 0 ] || ! docker info >/dev/null 2>&1; then
    echo "deps: the container tests need a running Docker daemon and the base image $BASE_IMAGE." >&2
    echo "deps: as root: apt-get install -y docker.io docker-compose debootstrap, then run make deps again" >&2
    echo "deps: (it starts dockerd and builds the base image); without them those tests skip, except in CI." >&2
  fi
  exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# dockerd: started in the background when no daemon answers; vfs works on any filesystem, overlay2 does not
# inside a container.
if ! docker info >/dev/null 2>&1; then
  # A daemon that was killed leaves its pid file, and dockerd then refuses to start.
  pidfile=/var/run/docker.pid
  if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "deps: removing $pidfile of a dockerd that no longer runs"
    rm -f "$pidfile"
  fi
  echo "deps: starting dockerd (storage driver vfs), log in $DOCKERD_LOG"
  nohup dockerd --storage-driver=vfs >>"$DOCKERD_LOG" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  if ! docker info >/dev/null 2>&1; then
    echo "deps: dockerd did not answer within 60 s; the end of $DOCKERD_LOG:" >&2
    tail -n 20 "$DOCKERD_LOG" >&2
    exit 1
  fi
fi

# mirror prints the first Debian archive this machine's apt uses (not the security archive), read from its
# sources at run time so that no mirror is written into this project.
mirror() {
  {
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -E '^URIs:' | awk '{print $2}' || true
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -E '^deb ' |
      sed -E 's/\[[^]]*\]//' | awk '{print $2}' || true
  } | { grep -v -e '-security' -e '^$' || true; } | head -n 1
}

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  url="$(mirror)"
  suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  if [ -z "$url" ] || [ -z "$suite" ]; then
    echo "deps: cannot tell the Debian mirror or release from /etc/apt and /etc/os-release; cannot build $BASE_IMAGE" >&2
    exit 1
  fi
  root="$(mktemp -d /var/tmp/fortune-tck-base.XXXXXX)"
  trap 'rm -rf "$root"' EXIT
  echo "deps: building the base image $BASE_IMAGE (debootstrap --variant=minbase $suite)"
  start=$SECONDS
  debootstrap --variant=minbase "$suite" "$root" "$url" >"$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    exit 1
  }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root.log"
  chmod 0755 "$root" # mktemp made it 0700, and it becomes the image's /: every user must traverse it
  tar -C "$root" -c . | docker import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  echo "deps: built $BASE_IMAGE in $((SECONDS - start)) s"
fi
