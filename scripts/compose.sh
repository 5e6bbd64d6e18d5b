#!/usr/bin/env bash
# make compose-up and make compose-down: the reference stack of docker-compose.yml, in the background, with
# whichever Compose this machine has (Compose v2, the docker CLI plugin, or Debian's docker-compose 1.29).
#   scripts/compose.sh up     build the reference image from this checkout, then start the stack (detached)
#   scripts/compose.sh down   stop it and remove its containers and volume
# The images are the public ones (BASE, default distroless; FORTUNE_TCK_REDIS_IMAGE, default redis:7;
# FORTUNE_TCK_RABBITMQ_IMAGE, default rabbitmq:3) when this machine has them or can pull them; otherwise the local
# ones: for the reference fortune-tck/static:local (an empty root but /tmp, built here), for Redis and RabbitMQ
# fortune-tck/redis:local and fortune-tck/rabbitmq:local (Debian's packages on fortune-tck/base:local, which
# make deps builds), and it says so.
# Environment: IMAGE (fortune-tck/reference:latest), BASE, FORTUNE_TCK_REDIS_IMAGE, FORTUNE_TCK_RABBITMQ_IMAGE, COMPOSE_PROJECT_NAME
# (fortune-tck: the project's volume is then fortune-tck_data, which examples/compose/target.yaml reads),
# FORTUNE_TCK_COMPOSE (the Compose command to use, e.g. "docker-compose"), and docker-compose.yml's own (its
# header lists them: the images, and the published ports, FORTUNE_TCK_AUTHSERVER_PORT and the like).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${FORTUNE_TCK_COMPOSE:-}" ]; then
  read -r -a compose <<<"$FORTUNE_TCK_COMPOSE" # the tests run each Compose there is
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  echo "compose: neither 'docker compose' nor 'docker-compose' works here: install Docker and Compose (as root, make deps does)" >&2
  exit 1
fi
export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-fortune-tck}"
if ! docker info >/dev/null 2>&1; then
  echo "compose: the Docker daemon does not answer (docker info): start it (as root, make deps starts dockerd), or run as a user of the docker group" >&2
  exit 1
fi

case "${1:-}" in
  down)
    exec "${compose[@]}" down -v --remove-orphans ;;
  up) ;;
  *)
    echo "usage: scripts/compose.sh up|down" >&2
    exit 2 ;;
esac

image="${IMAGE:-fortune-tck/reference:latest}"
base="${BASE:-gcr.io/distroless/static-debian12:nonroot}"
redis="${FORTUNE_TCK_REDIS_IMAGE:-redis:7}"
rabbitmq="${FORTUNE_TCK_RABBITMQ_IMAGE:-rabbitmq:3}"
local_base=fortune-tck/base:local
static_base=fortune-tck/static:local

# build runs docker build quietly, showing its output only when it fails (the legacy builder warns on every
# build where buildx is not installed).
build() {
  local log
  log="$(mktemp)"
  if ! docker build -q "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
}

# present tells whether an image is here, or can be pulled (within a minute: a machine without a registry fails).
present() {
  docker image inspect "$1" >/dev/null 2>&1 || timeout 60 docker pull -q "$1" >/dev/null 2>&1
}
need_local_base() {
  if ! docker image inspect "$local_base" >/dev/null 2>&1; then
    echo "compose: $1 cannot be pulled here, and $local_base is not built: run make deps as root (it builds $local_base from this machine's Debian packages)" >&2
    exit 1
  fi
}
if ! present "$base"; then
  echo "compose: $base cannot be pulled here; the reference image is built on $static_base instead (an empty root but /tmp)"
  scripts/static-image.sh
  base="$static_base"
fi
if ! present "$redis"; then
  need_local_base "$redis"
  echo "compose: $redis cannot be pulled here; using fortune-tck/redis:local (Debian's redis-server on $local_base)"
  build --build-arg BASE="$local_base" -t fortune-tck/redis:local docker/redis
  redis=fortune-tck/redis:local
fi
if ! present "$rabbitmq"; then
  need_local_base "$rabbitmq"
  echo "compose: $rabbitmq cannot be pulled here; using fortune-tck/rabbitmq:local (Debian's rabbitmq-server on $local_base)"
  build --build-arg BASE="$local_base" -t fortune-tck/rabbitmq:local docker/rabbitmq
  rabbitmq=fortune-tck/rabbitmq:local
fi

echo "compose: building $image from this checkout (the binary compiled here, on $base)"
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o build/reference ./cmd/reference
build --target local --build-arg BASE="$base" -t "$image" .

export FORTUNE_TCK_IMAGE="$image" FORTUNE_TCK_REDIS_IMAGE="$redis" FORTUNE_TCK_RABBITMQ_IMAGE="$rabbitmq" FORTUNE_TCK_BUILD_TARGET=local
"${compose[@]}" up -d
echo "compose: the stack runs (project $COMPOSE_PROJECT_NAME, with ${compose[*]}): http://localhost:${FORTUNE_TCK_AUTHSERVER_PORT:-9000}, :${FORTUNE_TCK_FORTUNE_PORT:-8787}, :${FORTUNE_TCK_GREETING_PORT:-8100}, :${FORTUNE_TCK_CONFIGSERVER_PORT:-8888}, :${FORTUNE_TCK_CONFIGAPP_PORT:-8080}, :${FORTUNE_TCK_GATEWAY_HTTP_PORT:-10080}; the bus's RabbitMQ at amqp://guest:guest@localhost:${FORTUNE_TCK_RABBITMQ_PORT:-5672}/"
echo "compose: its logs: ${compose[*]} -p $COMPOSE_PROJECT_NAME logs -f; stop it: make compose-down"
echo "compose: the suite against it (git, run as root, must use the stack's repository, which another user owns, for this run only):"
echo "  printf '[safe]\\n\\tdirectory = *\\n[receive]\\n\\tdenyCurrentBranch = ignore\\n' >/tmp/compose.gitconfig"
echo "  GIT_CONFIG_GLOBAL=/tmp/compose.gitconfig make conformance TARGET=examples/compose/target.yaml"
