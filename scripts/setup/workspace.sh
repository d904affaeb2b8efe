#!/usr/bin/env bash
# The workspace's packages. pnpm install is cheap when nothing changed; the lockfile is the contract.
set -euo pipefail
. "$(dirname "$0")/../env.sh"
cd "$ROOT" && pnpm install --frozen-lockfile --reporter=silent
