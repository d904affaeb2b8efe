#!/usr/bin/env bash
# The workspace's packages. pnpm install is cheap when nothing changed; the lockfile is the contract.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
cd "$ROOT" && pnpm install --frozen-lockfile --reporter=silent
# The license notices the About page serves (docs/operations.md): from the lockfile, the installed packages and the
# tools installed so far.
node "$ROOT/scripts/license-notices.ts" "$DATA/notices" "$ROOT/.tools" >/dev/null
