#!/usr/bin/env bash
# Starts or stops the portal's processes (every service, the gateway and the frontend) on this machine. The frontend
# serves the UI on http://127.0.0.1:8080/ (HTTP_PORT) and passes /api to the gateway on GATEWAY_PORT (8081).
set -euo pipefail
. "$(dirname "$0")/../env.sh"
SERVICES=(identity projects scan-orchestrator scanner-runner policy notifier admin)
RUN="$DATA/run"; mkdir -p "$RUN" "$DATA/logs"

# A development secret that survives restarts (kept under .data/, never committed).
if [ -z "${SECRET_KEY:-}" ]; then
  [ -f "$DATA/secret_key" ] || (umask 077; head -c 48 /dev/urandom | base64 | tr -d '\n/+=' > "$DATA/secret_key")
  SECRET_KEY="$(cat "$DATA/secret_key")"
fi
export SECRET_KEY
export APP_ENV="${APP_ENV:-dev}"
# As in the images: a young generation of at most 8 MB semi-spaces (deploy/docker/Dockerfile says why).
export NODE_OPTIONS="${NODE_OPTIONS:---max-semi-space-size=8}"
# As in the images: jemalloc as malloc, which gives freed memory back on its own (docs/scanner-runner.md, "Memory");
# Debian's libjemalloc2, which ./dev setup installs.
jemalloc="$(jemalloc_library)"
[ -n "$jemalloc" ] || die "libjemalloc.so.2 is not installed: run ./dev setup"
export LD_PRELOAD="${LD_PRELOAD:-$jemalloc}"
export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:3000,muzzy_decay_ms:0}"
export CORS_ALLOWED_ORIGINS="${CORS_ALLOWED_ORIGINS:-http://127.0.0.1:8080,http://localhost:8080}"
UI_PORT="${HTTP_PORT:-8080}"
GATEWAY_PORT="${GATEWAY_PORT:-8081}"

start_one() { # name dir [KEY=value...]
  local name=$1 dir=$2
  if [ -f "$RUN/$name.pid" ] && kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null; then return; fi
  # exec: the recorded pid is node's own; the redirections keep the caller's terminal or pipe free.
  (cd "$dir" && exec env "${@:3}" nohup node src/main.ts) >>"$DATA/logs/$name.log" 2>&1 </dev/null &
  echo $! > "$RUN/$name.pid"
}

stop_one() {
  local pidf="$RUN/$1.pid"
  [ -f "$pidf" ] || return 0
  local pid; pid="$(cat "$pidf")"
  kill -TERM "$pid" 2>/dev/null || { rm -f "$pidf"; return 0; }
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidf"
}

case "${1:-}" in
  start)
    bash "$ROOT/scripts/stack/servers.sh" start
    # Each service migrates its own schema and topics, so they migrate together.
    migrating=()
    for s in "${SERVICES[@]}"; do
      (cd "$ROOT/services/$s" && node src/main.ts migrate >>"$DATA/logs/$s.log" 2>&1) & migrating+=("$!:$s")
    done
    for m in "${migrating[@]}"; do wait "${m%%:*}" || die "migration of ${m#*:} failed; see $DATA/logs/${m#*:}.log"; done
    for s in "${SERVICES[@]}"; do start_one "$s" "$ROOT/services/$s"; done
    # The gateway behind the frontend's proxy: one hop whose X-Forwarded-For carries the client's address.
    start_one gateway "$ROOT/services/gateway" HTTP_PORT="$GATEWAY_PORT" TRUST_PROXY_HOPS=1
    # The app is built when its sources are newer than the build.
    fe="$ROOT/services/frontend"
    if [ ! -f "$fe/dist/index.html" ] || [ -n "$(find "$fe/app" "$fe/index.html" "$ROOT/packages/api-client/gen" -newer "$fe/dist/index.html" -print -quit)" ]; then
      (cd "$fe" && node_modules/.bin/vite build --logLevel warn) || die "building the UI failed"
    fi
    start_one frontend "$fe" HTTP_PORT="$UI_PORT" GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT"
    # Up to 120 s: after a restart the scanner-runner joins its consumer groups before it serves, and Kafka may hold a
    # join until the previous run's members time out.
    wait_for_portal "http://127.0.0.1:$UI_PORT/api" || die "the portal did not become ready; see ./dev logs"
    if [ -f "$ROOT/services/identity/src/commands/bootstrap-admin.ts" ]; then
      (cd "$ROOT/services/identity" && node src/commands/bootstrap-admin.ts)
    fi
    log "the portal is up: UI http://127.0.0.1:$UI_PORT/, API http://127.0.0.1:$UI_PORT/api (docs at /api/docs); ./dev logs to follow, ./dev down to stop"
    ;;
  stop)
    stop_one frontend
    stop_one gateway
    for s in "${SERVICES[@]}"; do stop_one "$s"; done
    ;;
  *) die "usage: portal.sh start|stop" ;;
esac
