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
# No breaking change (buf's FILE rules) against the main branch's contracts: on a branch, those at its merge-base with
# main; on main itself, those of the commit before.
base="$(git -C "$ROOT" merge-base HEAD main 2>/dev/null || true)"
[ "$base" != "$(git -C "$ROOT" rev-parse HEAD)" ] || base="$(git -C "$ROOT" rev-parse -q --verify HEAD~1 || true)"
if [ -n "$base" ]; then
  "$ROOT/node_modules/.bin/buf" breaking --against "$(git -C "$ROOT" rev-parse --absolute-git-dir)#ref=$base,subdir=proto" ||
    die "a breaking change to the contracts against $base; a field or RPC once released is only added to (docs/CONTRIBUTING.md)"
fi
