#!/usr/bin/env bash
# Starts the reference gateway as Envoy Gateway deploys Global rate limits: two gateway instances that ask
# envoyproxy/ratelimit (the service Envoy Gateway runs beside Envoy, built by `make deps` from its Go module at the
# version service.version beside this script names) over gRPC instead of counting in Redis themselves, the service on
# a redis-server of its own, and its configuration written by the gateways from their manifests into the folder it
# watches (its FILE mode: RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/config). target.yaml beside this script describes it.
# Environment:
#   FORTUNE_TCK_RLS_DIR (/tmp/fortune-tck-envoy-ratelimit)  manifests (gateway/, which the suite writes into), the
#                       service's runtime folder (runtime/), access logs, logs (logs/) and the built reference (bin/)
#   REDIS_PORT  (16380) the service's redis-server, on 127.0.0.1
#   GRPC_PORT   (18081) the service's gRPC port (ShouldRateLimit); HTTP_PORT (18080) its health check;
#                       DEBUG_PORT (16070) its debug port (/rlconfig: the configuration in force)
#   TIMEOUT     (1s)    the gateways' --rate-limit-service-timeout (Envoy's own default is 20ms)
#   REFERENCE_BIN       a built reference binary to run instead of building one from this checkout (the mutation
#                       check, tools/mutants, passes each mutant's)
#   FORTUNE_TCK_CACHE   where `make deps` put the service ($HOME/.cache/fortune-tck)
#   GATEWAY_HTTP_PORT (10080), GATEWAY_HTTPS_PORT (10443)  the listeners of the Gateway "eg" this script writes;
#                       the second gateway serves them 2 above (--port-offset 2), so both must be free 2 above too
#                       (target.yaml reads them, and GATEWAY2_HTTP_PORT and GATEWAY2_HTTPS_PORT for the second)
# Prints "envoy-ratelimit example ready" once the
# service and both gateways answer, then runs until Ctrl-C or SIGTERM, which stop every process (as does any of
# them exiting). Exits 3 when the service is not built or was built at another version (run make deps), or a
# program it needs is missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
service="${FORTUNE_TCK_CACHE:-$HOME/.cache/fortune-tck}/ratelimit/bin/service_cmd"
version="$(tr -d '[:space:]' <"$here/service.version")"
if [ ! -x "$service" ] || [ "$(cat "$service.version" 2>/dev/null)" != "$version" ]; then
  echo "envoyproxy/ratelimit ($version) is not built or is out of date: run make deps" >&2
  exit 3
fi
for tool in curl go redis-server; do
  command -v "$tool" >/dev/null 2>&1 || { echo "start.sh needs $tool" >&2; exit 3; }
done

dir="${FORTUNE_TCK_RLS_DIR:-/tmp/fortune-tck-envoy-ratelimit}"
redis_port="${REDIS_PORT:-16380}"
grpc_port="${GRPC_PORT:-18081}"
http_port="${HTTP_PORT:-18080}"
debug_port="${DEBUG_PORT:-16070}"
config="$dir/runtime/ratelimit/config"
mkdir -p "$dir/gateway" "$config" "$dir/logs" "$dir/bin"

gw_http="${GATEWAY_HTTP_PORT:-10080}"
gw_https="${GATEWAY_HTTPS_PORT:-10443}"
for port in "$gw_http" "$((gw_http + 2))" "$http_port" "$debug_port"; do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
    echo "port $port already answers HTTP: stop what runs there (or set GATEWAY_HTTP_PORT, HTTP_PORT, DEBUG_PORT)" >&2
    exit 1
  fi
done

pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The reference, built first so that the processes started are the gateways themselves.
reference="${REFERENCE_BIN:-}"
if [ -z "$reference" ]; then
  reference="$dir/bin/reference"
  (cd "$root" && go build -o "$reference" ./cmd/reference)
elif [ ! -x "$reference" ]; then
  echo "REFERENCE_BIN=$reference is not an executable file" >&2
  exit 3
fi

# The Gateway the suite's routes attach to (target.yaml: gatewayName eg).
cat >"$dir/gateway/.gateway.yaml.tmp" <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: eg
spec:
  gatewayClassName: eg
  listeners:
    - {name: http, protocol: HTTP, port: $gw_http}
    - {name: https, protocol: HTTPS, port: $gw_https}
EOF
mv -f "$dir/gateway/.gateway.yaml.tmp" "$dir/gateway/gateway.yaml"

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/logs/redis.log" 2>&1 &
pids+=($!)
# The service connects to Redis once, at start, and exits when it cannot: Redis must accept connections first.
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null; then
    break
  fi
  kill -0 "${pids[-1]}" 2>/dev/null || { echo "redis-server exited; logs in $dir/logs" >&2; tail -n 20 "$dir/logs/redis.log" >&2; exit 1; }
  sleep 0.1
done

# The service's settings as Envoy Gateway sets them (internal/infrastructure/kubernetes/ratelimit), but for its
# FILE configuration (Envoy Gateway serves it over xDS) and plaintext gRPC on loopback.
RUNTIME_ROOT="$dir/runtime" RUNTIME_SUBDIRECTORY=ratelimit RUNTIME_WATCH_ROOT=false RUNTIME_IGNOREDOTFILES=true \
  REDIS_SOCKET_TYPE=tcp REDIS_URL="127.0.0.1:$redis_port" \
  HOST=127.0.0.1 PORT="$http_port" GRPC_HOST=127.0.0.1 GRPC_PORT="$grpc_port" DEBUG_HOST=127.0.0.1 DEBUG_PORT="$debug_port" \
  USE_STATSD=false DISABLE_STATS=true LOG_LEVEL=info LOG_FORMAT=json \
  "$service" >"$dir/logs/ratelimit.log" 2>&1 &
pids+=($!)

for i in 1 2; do
  "$reference" serve gateway --config "$dir/gateway" --port-offset "$(((i - 1) * 2))" \
    --rate-limit-service "grpc://127.0.0.1:$grpc_port" --rate-limit-service-config "$config" \
    --rate-limit-service-timeout "${TIMEOUT:-1s}" \
    --access-log "$dir/gateway-$i-access.log" >"$dir/logs/gateway-$i.log" 2>&1 &
  pids+=($!)
done

# waitfor URL NAME: until URL answers HTTP at all, while every process lives, for 60 seconds at most.
waitfor() {
  for _ in $(seq 1 600); do
    for pid in "${pids[@]}"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "a process exited before $2 answered; logs in $dir/logs:" >&2
        tail -n 20 "$dir"/logs/*.log >&2
        exit 1
      fi
    done
    if curl -s -o /dev/null "$1"; then
      return
    fi
    sleep 0.1
  done
  echo "$2 did not answer at $1 within 60 seconds; logs in $dir/logs" >&2
  exit 1
}
waitfor "http://127.0.0.1:$http_port/healthcheck" "envoyproxy/ratelimit"
waitfor "http://127.0.0.1:$gw_http/" "gateway 1"
waitfor "http://127.0.0.1:$((gw_http + 2))/" "gateway 2"
echo "envoy-ratelimit example ready: gateways on http://127.0.0.1:$gw_http and http://127.0.0.1:$((gw_http + 2)), service grpc://127.0.0.1:$grpc_port, manifests in $dir/gateway"

# wait returns when any process ends or a trapped signal arrives; the EXIT trap stops the others.
wait -n "${pids[@]}" || true
echo "a process of the example exited; logs in $dir/logs" >&2
exit 1
