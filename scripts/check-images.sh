#!/usr/bin/env bash
# Runs built images (./dev images) against this machine's PostgreSQL, Redis and Kafka and checks that each becomes
# ready (docs/deploy.md, "Images"): podman runs the image's migrate command, then the service, on the host's network,
# with a database, Redis index and topic prefix of their own so no portal's or test's data is touched; readiness is
# the gRPC health check the chart's probe asks (`readiness`: the schema at its latest migration), over h2c; for the
# gateway (no schema; ready only when every service is) its liveness, GET /health, and the web UI's GET /healthz. Also checks tini is PID 1 and node
# runs as uid 1000, and the license notices are in the image.
#   check-images.sh [service ...]   (default: policy)
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$ROOT/scripts/images-storage.sh"
[ $# -gt 0 ] || set -- policy
bash "$ROOT/scripts/stack/servers.sh" start >/dev/null
DB=sca_images
psql -qAt "postgresql://sca:sca@127.0.0.1:$PG_PORT/sca" -c "select 1 from pg_database where datname = '$DB'" |
  grep -q 1 || psql -q "postgresql://sca:sca@127.0.0.1:$PG_PORT/sca" -c "create database $DB"
PORT=57190
run=(podman "${STORAGE[@]}" run --network host --runtime runc --cgroup-manager cgroupfs
  -e DATABASE_URL="postgresql://sca:sca@127.0.0.1:$PG_PORT/$DB" -e REDIS_URL="redis://127.0.0.1:$REDIS_PORT/14"
  -e KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT" -e KAFKA_TOPIC_PREFIX=images-check. -e APP_ENV=dev
  -e SECRET_KEY=images-check-secret-key-of-32-characters-at-least -e RPC_PORT="$PORT" -e HTTP_PORT="$PORT")
# The HTTP servers' health routes (no schema to migrate); the others answer gRPC.
declare -A HTTP_HEALTH=([gateway]=/health [frontend]=/healthz)
ready() { # the chart's probes: grpc.health.v1.Health/Check for "readiness" as Connect's JSON over h2c, or GET
  if [ -n "${HTTP_HEALTH[$s]:-}" ]; then curl -fsS -o /dev/null "http://127.0.0.1:$PORT${HTTP_HEALTH[$s]}" 2>/dev/null; return; fi
  curl -fsS --http2-prior-knowledge -H 'content-type: application/json' -d '{"service":"readiness"}' \
    "http://127.0.0.1:$PORT/grpc.health.v1.Health/Check" 2>/dev/null | grep -q '"SERVING"'
}
for s in "$@"; do
  image="$REPO/$s:$TAG"
  started=$SECONDS
  [ -n "${HTTP_HEALTH[$s]:-}" ] || "${run[@]}" --rm "$image" node src/main.ts migrate >/dev/null || die "$s: the image's migrate command failed"
  name="sca-images-check-$s-$$"
  # Not --rm: a service that exits keeps its log for the message below.
  "${run[@]}" --detach --name "$name" "$image" >/dev/null
  trap 'podman "${STORAGE[@]}" rm --force --time 5 "$name" >/dev/null 2>&1 || true' EXIT
  for _ in $(seq 300); do ready && break; sleep 0.2; done
  ready || { podman "${STORAGE[@]}" logs "$name" >&2; die "$s did not become ready in 60 s (its log above)"; }
  # PID 1 is tini, node its child, both as the image's unprivileged user.
  pid1="$(podman "${STORAGE[@]}" exec "$name" cat /proc/1/comm)"
  [ "$pid1" = tini ] || die "$s: PID 1 is $pid1, not tini"
  [ "$(podman "${STORAGE[@]}" exec "$name" id -u)" = 1000 ] || die "$s: not running as uid 1000"
  children="$(podman "${STORAGE[@]}" exec "$name" sh -c \
    'for p in /proc/[0-9]*; do [ "$(cut -d" " -f4 $p/stat)" != 1 ] || cat $p/cmdline | tr "\0" " "; echo; done')"
  grep -q '^node src/main.ts' <<<"$children" || die "$s: node is not tini's child (its children: $children)"
  notices="$(podman "${STORAGE[@]}" exec "$name" sh -c 'ls "$NOTICES_DIR" | wc -l')"
  [ "$notices" -gt 100 ] || die "$s: only $notices files in its license notices"
  podman "${STORAGE[@]}" rm --force --time 10 "$name" >/dev/null
  trap - EXIT
  log "$s: ready $((SECONDS - started)) s after its first command (the migration, for those with a schema); tini is PID 1, uid 1000, $notices notice files"
done
