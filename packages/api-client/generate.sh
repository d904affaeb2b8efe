#!/usr/bin/env bash
# Writes gen/openapi.json (the gateway's OpenAPI document) and gen/openapi.ts (its types, by openapi-typescript) into
# the directory given (default: gen/ beside this script). scripts/check-api-client.sh fails when the committed ones
# are stale: a changed route breaks the UI's typecheck, not a user.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here/gen}"
mkdir -p "$out"
(cd "$root/services/gateway" && node src/commands/openapi.ts) >"$out/openapi.json"
"$here/node_modules/.bin/openapi-typescript" "$out/openapi.json" --output "$out/openapi.ts" >/dev/null
