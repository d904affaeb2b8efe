#!/usr/bin/env bash
# Runs every benchmark against a running portal (started here with ./dev up if it is not) and prints the tables.
# usage: bench/run.sh [bench-name ...]   (default: all *.ts in bench/ but the helpers table.ts and portal.ts)
# The inventory benchmarks (ingest, component-list, gate-result) sign in as the super_admin: set ADMIN_PASSWORD (and ADMIN_EMAIL
# if it is not admin@sca.local) to what ./dev up printed.
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
cd "$ROOT"
# A portal started here asks no public registry: the ingest bench's generated package names would each be looked up
# (docs/benchmarks.md, `ingest`).
curl -fsS -o /dev/null "http://127.0.0.1:${HTTP_PORT:-8080}/api/health/ready" 2>/dev/null ||
  LICENSE_FETCH_ENABLED=false CURRENCY_ENABLED=false ./dev up
export BENCH_SECRET_KEY="$(cat "$DATA/secret_key")"
export BENCH_RUN_DIR="$DATA/run" BENCH_BASE_URL="${BENCH_BASE_URL:-http://127.0.0.1:${HTTP_PORT:-8080}}"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls bench/*.ts | xargs -n1 basename | sed 's/\.ts$//' | grep -v '^table$\|^portal$'))
for n in "${names[@]}"; do node "bench/$n.ts"; echo; done
