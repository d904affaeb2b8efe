#!/usr/bin/env bash
# Fails when packages/api-client/gen is not what the gateway's routes generate (pnpm --filter @sca/api-client generate).
set -euo pipefail
. "$(dirname "$0")/env.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
bash "$ROOT/packages/api-client/generate.sh" "$tmp"
if ! diff -r "$tmp" "$ROOT/packages/api-client/gen" >/dev/null; then
  diff -r "$tmp" "$ROOT/packages/api-client/gen" | head -20 >&2
  die "packages/api-client/gen is stale: run 'pnpm --filter @sca/api-client generate' and commit the result"
fi
