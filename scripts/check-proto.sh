#!/usr/bin/env bash
# Lints the contracts and fails when proto/gen is not what the .proto files generate.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$ROOT/proto"
"$ROOT/node_modules/.bin/buf" lint
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cp -r . "$tmp/proto"; rm -rf "$tmp/proto/gen" "$tmp/proto/node_modules"
(cd "$tmp/proto" && PATH="$ROOT/node_modules/.bin:$PATH" buf generate)
if ! diff -r "$tmp/proto/gen" gen >/dev/null; then
  diff -r "$tmp/proto/gen" gen | head -20 >&2
  die "proto/gen is stale: run 'pnpm proto:generate' and commit the result"
fi
