#!/usr/bin/env bash
# Runs the whole portal from its built images (scripts/images.sh), as a platform team would (docs/deploy.md, "Images"):
#  - pushes every image to a local OCI registry (go-containerregistry's, the container-scan tests' one) and pulls it
#    back from there (its blobs kept under .tools/containers/registry); the chart rendered with image.repository set
#    to that registry must name exactly those images;
#  - migrates each service with its image's `migrate` command, then starts every service, the gateway and the web UI
#    with podman on the host's network against this machine's PostgreSQL, Kafka and Redis, with a database, Redis
#    index, topic prefix and ports (72xx, below the ephemeral range the tests' servers take) of their own, so a
#    running ./dev up and the tests are left alone; one data volume holds the artefact store, as the chart's
#    ReadWriteMany volume does;
#  - creates the first super_admin with the identity image's bootstrap command and runs the README's "A first scan"
#    block as written against the web UI's /api: the scan must succeed with its 1,001 components;
#  - checks each container: tini is PID 1 with node its child, running as uid 1000, the license notices in place.
#   check-images.sh    (./dev test runs it after scripts/images.sh; alone, after ./dev images)
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$ROOT/scripts/images-storage.sh"
SERVICES=(identity projects scan-orchestrator scanner-runner policy notifier admin)
bash "$ROOT/scripts/stack/servers.sh" start >/dev/null
started=$SECONDS
run_id="$$"
DB=sca_images
PREFIX="images-$run_id."
REGISTRY_PORT=7290
UI_PORT=7280
GATEWAY_PORT=7281
declare -A PORT=([identity]=7201 [projects]=7202 [scan-orchestrator]=7203 [scanner-runner]=7204 [policy]=7205
  [notifier]=7206 [admin]=7207)
psql_sca() { psql -qAt "postgresql://sca:sca@127.0.0.1:$PG_PORT/sca" "$@"; }
podman_() { podman "${STORAGE[@]}" "$@"; }
volume="$(mktemp -d -t sca-images.XXXXXX)"
registry_pid=""

clean_up() {
  local names
  names="$(podman_ ps --all --format '{{.Names}}' | grep -E "^sca-images-.*-$run_id$" || true)"
  # Stopped first, then removed: a single `rm --force` left some behind as they exited. One name per word.
  if [ -n "$names" ]; then
    # shellcheck disable=SC2086
    podman_ stop --time 10 $names >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    podman_ rm --force $names >/dev/null || log "removing the containers $names failed"
  fi
  [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || true
  psql_sca -c "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  java -cp "$TOOLS/kafka-$KAFKA_VERSION/lib/*" org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "127.0.0.1:$KAFKA_PORT" --delete --topic "${PREFIX//./\\.}.*" >/dev/null 2>&1 || true
  rm -rf "$volume"
}
trap clean_up EXIT

[ -x "$TOOLS/bin/crane" ] || die "the OCI registry is not installed: run ./dev setup"
# The registry, its blobs on disk; those nothing pushed for two weeks are dropped (pushed again when needed).
blobs="$STORE/registry"
mkdir -p "$DATA/images" "$blobs"
find "$blobs" -type f -mtime +14 -delete 2>/dev/null || true
"$TOOLS/bin/crane" registry serve --address "127.0.0.1:$REGISTRY_PORT" --disk "$blobs" >"$DATA/images/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$REGISTRY_PORT/v2/" 2>/dev/null && break; sleep 0.1; done
registry="127.0.0.1:$REGISTRY_PORT/sca-portal"
declare -A IMAGE
for s in "${SERVICES[@]}" gateway frontend; do
  # gzip's fastest level: over loopback, compressing costs more than the bytes it saves.
  buildah "${STORAGE[@]}" push --quiet --tls-verify=false --compression-level 1 "$REPO/$s:$TAG" \
    "docker://$registry/$s:$TAG" || die "pushing $s to the registry failed"
  podman_ pull --quiet --tls-verify=false "$registry/$s:$TAG" >/dev/null || die "pulling $s from the registry failed"
  IMAGE[$s]="$registry/$s:$TAG"
done
# The chart, pointed at this registry, names exactly these images.
rendered="$(helm template sca-portal "$ROOT/deploy/helm/sca-portal" --set image.repository="$registry" |
  sed -n 's/^ *image: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' | sort -u)"
[ "$rendered" = "$(printf '%s\n' "${IMAGE[@]}" | sort)" ] ||
  die "the chart's images with image.repository=$registry are not the ones pushed: $rendered"
log "the nine images pushed to and pulled from a local OCI registry, the chart's references ($((SECONDS - started)) s)"

psql_sca -c "drop database if exists $DB with (force)" -c "create database $DB"
chown 1000:1000 "$volume"
run=(podman "${STORAGE[@]}" run --network host --runtime runc --cgroup-manager cgroupfs
  -e DATABASE_URL="postgresql://sca:sca@127.0.0.1:$PG_PORT/$DB" -e REDIS_URL="redis://127.0.0.1:$REDIS_PORT/14"
  -e KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT" -e KAFKA_TOPIC_PREFIX="$PREFIX" -e APP_ENV=dev
  -e SECRET_KEY=images-check-secret-key-of-32-characters-at-least -e SCA_DATA_DIR=/data --volume "$volume:/data")
for s in "${SERVICES[@]}"; do
  key="$(tr a-z- A-Z_ <<<"$s")_RPC_URL"
  run+=(-e "$key=http://127.0.0.1:${PORT[$s]}")
done

# Each service migrates its own schema and topics, so they migrate together.
migrating=()
for s in "${SERVICES[@]}"; do
  "${run[@]}" --rm "${IMAGE[$s]}" node src/main.ts migrate >"$DATA/images/$s.migrate.log" 2>&1 & migrating+=("$!:$s")
done
for m in "${migrating[@]}"; do
  wait "${m%%:*}" || { cat "$DATA/images/${m#*:}.migrate.log" >&2; die "the ${m#*:} image's migration failed"; }
done
for s in "${SERVICES[@]}"; do
  "${run[@]}" --detach --name "sca-images-$s-$run_id" -e RPC_PORT="${PORT[$s]}" "${IMAGE[$s]}" >/dev/null
done
"${run[@]}" --detach --name "sca-images-gateway-$run_id" -e HTTP_PORT="$GATEWAY_PORT" -e TRUST_PROXY_HOPS=1 \
  "${IMAGE[gateway]}" >/dev/null
"${run[@]}" --detach --name "sca-images-frontend-$run_id" -e HTTP_PORT="$UI_PORT" \
  -e GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT" "${IMAGE[frontend]}" >/dev/null
api="http://127.0.0.1:$UI_PORT/api"
if ! wait_for_portal "$api"; then
  for s in "${SERVICES[@]}" gateway frontend; do
    echo "--- $s" >&2
    podman_ logs --tail 30 "sca-images-$s-$run_id" >&2 2>&1 || true
  done
  die "the portal started from the images was not ready in 120 s (the containers' logs above)"
fi
log "the portal from the images is ready ($((SECONDS - started)) s)"

# In each container: PID 1 is tini, node its child, both as the image's unprivileged user; the notices are there.
for s in "${SERVICES[@]}" gateway frontend; do
  facts="$(podman_ exec "sca-images-$s-$run_id" sh -c 'cat /proc/1/comm; id -u; ls "$NOTICES_DIR" | wc -l
    for p in /proc/[0-9]*; do [ "$(cut -d" " -f4 $p/stat)" != 1 ] || tr "\0" " " < $p/cmdline; echo; done')"
  { read -r pid1; read -r uid; read -r notices; children="$(cat)"; } <<<"$facts"
  [ "$pid1" = tini ] || die "$s: PID 1 is $pid1, not tini"
  [ "$uid" = 1000 ] || die "$s: running as uid $uid, not 1000"
  [ "$notices" -gt 100 ] || die "$s: only $notices files in its license notices"
  grep -q '^node src/main.ts' <<<"$children" || die "$s: node is not tini's child (its children: $children)"
done

# The README's first scan, as a reader runs it: the super_admin ./dev up would create, then the block as written.
password="Images-$(head -c 12 /dev/urandom | base64 | tr -d '/+=')"
"${run[@]}" --rm -e ADMIN_EMAIL=admin@sca.local -e ADMIN_PASSWORD="$password" "${IMAGE[identity]}" \
  node src/commands/bootstrap-admin.ts >/dev/null || die "the identity image's bootstrap-admin failed"
block="$(awk '/^<!-- first-scan:/ { marked = 1; next } marked && /^```bash$/ { inside = 1; next }
  inside && /^```$/ { exit } inside' "$ROOT/README.md")"
[ -n "$block" ] || die "README.md has no first-scan block"
out="$(cd "$ROOT" && API="$api" ADMIN_PASSWORD="$password" bash -c "$block" 2>&1)" || true
grep -qx succeeded <<<"$out" && [ "$(tail -n 1 <<<"$out")" = 1001 ] ||
  die "the README's first scan against the images' portal did not give 1001 components; it printed:
$out"
log "the README's first scan against the portal from the images: succeeded, 1001 components; tini is PID 1, uid 1000, notices in every container ($((SECONDS - started)) s in all)"
