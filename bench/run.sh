#!/usr/bin/env bash
# Runs every benchmark against a running portal (started here with ./dev up if it is not) and prints the tables.
# usage: bench/run.sh [bench-name ...]   (default: all *.ts in bench/ but table.ts)
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
cd "$ROOT"
curl -fsS -o /dev/null "http://127.0.0.1:${HTTP_PORT:-8080}/api/health/ready" 2>/dev/null || ./dev up
export BENCH_SECRET_KEY="$(cat "$DATA/secret_key")"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls bench/*.ts | xargs -n1 basename | sed 's/\.ts$//' | grep -v '^table$'))
for n in "${names[@]}"; do node "bench/$n.ts"; echo; done
